// FrostboxOpenMeteo
