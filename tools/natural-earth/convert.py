#!/usr/bin/env python3
"""Converts Natural Earth's 1:110m countries (the `naturalearth_lowres` shapefile that the
geopandas 0.14.4 wheel ships) into the compact land outline the status page draws.

Run once; the result is committed as Sources/FrostboxHTTP/StatusPage/land.json:

    pip download geopandas==0.14.4 --no-deps -d /tmp/ne
    unzip -o /tmp/ne/geopandas-0.14.4-py3-none-any.whl 'geopandas/datasets/naturalearth_lowres/*' -d /tmp/ne
    python3 tools/natural-earth/convert.py /tmp/ne/geopandas/datasets/naturalearth_lowres/naturalearth_lowres.shp \
        Sources/FrostboxHTTP/StatusPage/land.json

Pure Python (no GIS library): reads the shapefile's polygon records with `struct`, simplifies
every ring with Douglas-Peucker, quantizes to 0.1 degree and writes each ring as a flat list
of integers, the first point absolute and the rest deltas. Natural Earth is public domain.
"""
import json
import struct
import sys

QUANTUM = 10  # units per degree: 0.1 degree
TOLERANCE = 0.12  # Douglas-Peucker tolerance, degrees


def read_polygons(path):
    """Every ring of every polygon record in a .shp file, as lists of (lon, lat)."""
    with open(path, "rb") as handle:
        data = handle.read()
    code, = struct.unpack(">i", data[0:4])
    if code != 9994:
        raise SystemExit(f"{path}: not a shapefile (file code {code})")
    shape_type, = struct.unpack("<i", data[32:36])
    if shape_type not in (5, 15, 25):
        raise SystemExit(f"{path}: shape type {shape_type} is not a polygon type")
    rings = []
    offset = 100
    while offset + 8 <= len(data):
        _, length_words = struct.unpack(">ii", data[offset:offset + 8])
        content = data[offset + 8:offset + 8 + 2 * length_words]
        offset += 8 + 2 * length_words
        record_type, = struct.unpack("<i", content[0:4])
        if record_type == 0:
            continue
        parts_count, points_count = struct.unpack("<ii", content[36:44])
        parts = list(struct.unpack(f"<{parts_count}i", content[44:44 + 4 * parts_count]))
        base = 44 + 4 * parts_count
        points = [struct.unpack("<dd", content[base + 16 * i:base + 16 * i + 16]) for i in range(points_count)]
        for index, start in enumerate(parts):
            end = parts[index + 1] if index + 1 < len(parts) else points_count
            rings.append(points[start:end])
    return rings


def perpendicular(point, start, end):
    (x, y), (x1, y1), (x2, y2) = point, start, end
    dx, dy = x2 - x1, y2 - y1
    if dx == 0 and dy == 0:
        return ((x - x1) ** 2 + (y - y1) ** 2) ** 0.5
    return abs(dy * x - dx * y + x2 * y1 - y2 * x1) / (dx * dx + dy * dy) ** 0.5


def simplify(points, tolerance):
    """Douglas-Peucker, iterative (rings can be long)."""
    if len(points) < 3:
        return points
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        first, last = stack.pop()
        worst, index = 0.0, None
        for i in range(first + 1, last):
            distance = perpendicular(points[i], points[first], points[last])
            if distance > worst:
                worst, index = distance, i
        if index is not None and worst > tolerance:
            keep[index] = True
            stack.append((first, index))
            stack.append((index, last))
    return [p for p, k in zip(points, keep) if k]


def encode(ring):
    """Quantized, consecutive duplicates dropped, first point absolute then deltas."""
    quantized = []
    for lon, lat in ring:
        point = (round(lon * QUANTUM), round(lat * QUANTUM))
        if not quantized or quantized[-1] != point:
            quantized.append(point)
    if len(quantized) < 4:
        return None
    flat = list(quantized[0])
    for (x0, y0), (x1, y1) in zip(quantized, quantized[1:]):
        flat += [x1 - x0, y1 - y0]
    return flat


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: convert.py naturalearth_lowres.shp land.json")
    rings = read_polygons(sys.argv[1])
    encoded = [r for r in (encode(simplify(ring, TOLERANCE)) for ring in rings) if r]
    document = {
        "source": "Natural Earth 1:110m countries (public domain), via geopandas 0.14.4 naturalearth_lowres",
        "scale": QUANTUM,
        "encoding": "per ring: lon0, lat0, then dlon, dlat per point, in 1/scale degrees",
        "rings": encoded,
    }
    with open(sys.argv[2], "w") as handle:
        json.dump(document, handle, separators=(",", ":"))
        handle.write("\n")
    points = sum(len(r) // 2 for r in encoded)
    print(f"{len(encoded)} rings, {points} points -> {sys.argv[2]}")


if __name__ == "__main__":
    main()
