"""The colours of the acceptance heat map's cells, for molecule/acceptance/verify.yml.

    heat_map_cells.py HEAT_MAP_PNG REPORT_JSON

Decodes the PNG with zlib and struct (8-bit RGB, as plugins/plugin_utils/acceptance/heat_map.py writes
it) and prints JSON: {"size": [width, height], "pairs": [{"pair": "node1-node2", "status": ...,
"ratio": ..., "colours": [[r, g, b], [r, g, b]]}]}, the colours being the centres of the pair's
two cells (row of its first node and column of its second, and the mirror one). The cells are
placed by heat_map_layout of that module, whose geometry the unit tests check on the image.
"""
import json
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "collections"))
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance.heat_map import heat_map_layout


def decode(data):
    """(width, height, rows of RGB bytes) of a PNG whose scanlines use no filter."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    offset, header, compressed = 8, None, b""
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        kind, body = data[offset + 4:offset + 8], data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            compressed += body
        offset += 12 + length
    width, height, depth, colour_type = header
    if (depth, colour_type) != (8, 2):
        raise ValueError("not 8-bit RGB: depth %d, colour type %d" % (depth, colour_type))
    raw, stride = zlib.decompress(compressed), 1 + 3 * width
    if any(raw[row * stride] != 0 for row in range(height)):
        raise ValueError("a scanline uses a filter")
    return width, height, [raw[row * stride + 1:(row + 1) * stride] for row in range(height)]


def main(png_path, report_path):
    with open(png_path, "rb") as handle:
        width, height, rows = decode(handle.read())
    with open(report_path, encoding="utf-8") as handle:
        report = json.load(handle)
    layout = heat_map_layout(report)
    index = {row["node"]: number for number, row in enumerate(report["nodes"])}
    pitch = layout.cell + layout.gap

    def centre(row, column):
        x = layout.grid_x + layout.gap + column * pitch + layout.cell // 2
        y = layout.grid_y + layout.gap + row * pitch + layout.cell // 2
        return list(rows[y][3 * x:3 * x + 3])

    pairs = []
    for pair in report["pairs"]:
        first, second = (index[node] for node in pair["pair"])
        pairs.append({"pair": "-".join(pair["pair"]), "status": pair["status"], "ratio": pair["ratio"],
                      "colours": [centre(first, second), centre(second, first)]})
    print(json.dumps({"size": [width, height], "pairs": pairs}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
