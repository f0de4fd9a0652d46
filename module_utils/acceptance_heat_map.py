"""The acceptance report's node-by-node heat map as PNG bytes, written with zlib alone (no
plotting library needed on the controller).

Cell (row i, column j) is the pair of the i-th and j-th node of the report, coloured by its
bandwidth against the cluster's pair reference (green at 1 or more, through yellow, to red at
0), black when the pair broke, grey when it was not measured; the diagonal is each node's own
test against the nodes' median. Nodes run in the report's order, top to bottom, left to right.
"""
import struct
import zlib

BROKEN = (0, 0, 0)
UNMEASURED = (200, 200, 200)
BACKGROUND = (255, 255, 255)


def _colour(ratio):
    ratio = max(0.0, min(1.0, ratio))
    if ratio < 0.5:
        return (220, int(40 + 360 * ratio), 40)
    return (int(220 - 360 * (ratio - 0.5)), 200, 40)


def heat_map_cells(report):
    """The matrix of colours (rows of RGB tuples) the PNG shows."""
    nodes = [row["node"] for row in report["nodes"]]
    index = {node: i for i, node in enumerate(nodes)}
    cells = [[UNMEASURED for _ in nodes] for _ in nodes]
    for row in report["nodes"]:
        if row["intra_ratio"] is not None:
            cells[index[row["node"]]][index[row["node"]]] = _colour(row["intra_ratio"])
        elif row["status"] == "broken":
            cells[index[row["node"]]][index[row["node"]]] = BROKEN
    for pair in report["pairs"]:
        first, second = (index[node] for node in pair["pair"])
        colour = BROKEN if pair["status"] == "broken" or pair["ratio"] is None else _colour(pair["ratio"])
        cells[first][second] = cells[second][first] = colour
    return cells


def heat_map_png(report, cell=24, gap=2):
    """PNG bytes of the node-by-node heat map."""
    cells = heat_map_cells(report)
    count = len(cells)
    side = max(1, count * (cell + gap) + gap)
    raw = bytearray()
    for y in range(side):
        raw.append(0)
        row_index, inside_y = divmod(y - gap, cell + gap)
        for x in range(side):
            column, inside_x = divmod(x - gap, cell + gap)
            if y >= gap and x >= gap and inside_y < cell and inside_x < cell and row_index < count and column < count:
                raw.extend(cells[row_index][column])
            else:
                raw.extend(BACKGROUND)
    return _png(side, side, bytes(raw))


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _png(width, height, raw):
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 9))
            + _chunk(b"IEND", b""))
