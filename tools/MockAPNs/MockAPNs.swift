enum MockAPNsPlaceholder {}
