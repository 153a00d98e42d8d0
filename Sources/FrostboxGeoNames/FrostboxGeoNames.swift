// FrostboxGeoNames
