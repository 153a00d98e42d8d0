enum MockOpenMeteoPlaceholder {}
