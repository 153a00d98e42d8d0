#!/usr/bin/env python3
"""Writes Sources/FrostboxBundledPlaces/Resources/nordic-cities1000.zip, the bundled GeoNames
extract compiled into the frostbox binary (so that `serve` seeds places from any directory),
from data/geonames/nordic-cities1000.txt. Deflated, with a fixed timestamp and permissions,
so that regenerating from the same text gives the same bytes. A test (BundledPlacesTests)
checks that the archive holds exactly the text file.

Run from the package root: python3 tools/bundled-places/generate.py
"""
import zipfile

SOURCE = "data/geonames/nordic-cities1000.txt"
TARGET = "Sources/FrostboxBundledPlaces/Resources/nordic-cities1000.zip"

with open(SOURCE, "rb") as f:
    text = f.read()
info = zipfile.ZipInfo("nordic-cities1000.txt", date_time=(2019, 1, 1, 0, 0, 0))
info.compress_type = zipfile.ZIP_DEFLATED
info.external_attr = 0o644 << 16
with zipfile.ZipFile(TARGET, "w") as archive:
    archive.writestr(info, text, compresslevel=9)
print(f"{TARGET}: {len(text)} bytes of text")
