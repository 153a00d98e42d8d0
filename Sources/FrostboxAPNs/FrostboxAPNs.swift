// FrostboxAPNs
