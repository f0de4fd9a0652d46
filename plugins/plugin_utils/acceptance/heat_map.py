"""The acceptance report's node-by-node heat map as PNG bytes, written with zlib alone (no
plotting library needed on the controller).

Cell (row i, column j) is the pair of the i-th and j-th node of the report, coloured by its
bandwidth against the cluster's pair reference (green at 1 or more, through yellow, to red at
0), black when the pair broke, grey when it was not measured; the diagonal is each node's own
test against the nodes' median. Nodes run in the report's order, top to bottom, left to right.

Each row is labelled with its node's name on the left, each column above it, written upwards,
in a built-in 5 x 7 pixel font (capitals drawn as small letters, a box for a character it lacks).
A domain every node shares (the part after the first dot, when it has a letter) is left out,
and a name still longer than 16 characters keeps its first 7 and last 8 joined by '~'.
A legend below the grid explains the colours. Cells are 24 pixels, smaller for more than 32
nodes (never under 8, a label's height), so 128 nodes make an image of about 1400 pixels a side.
"""
import collections
import struct
import zlib

BROKEN = (0, 0, 0)
UNMEASURED = (200, 200, 200)
BACKGROUND = (255, 255, 255)
INK = (40, 40, 40)
_INK_BYTES = bytes(INK)

GLYPH_WIDTH, GLYPH_HEIGHT = 5, 7
ADVANCE = GLYPH_WIDTH + 1
LABEL_CHARS = 16
LABEL_HEAD = 7  # a longer name keeps this many first characters, '~' and the last ones
MARGIN = 4
LABEL_GAP = 3
MIN_CELL = GLYPH_HEIGHT + 1
LARGEST_CELL = 24
GRID_TARGET = 768  # pixels: for many nodes cells shrink to keep the grid this wide, down to MIN_CELL
LINE = GLYPH_HEIGHT + 4
SCALE_WIDTH = 101  # one pixel per hundredth of the ratio 0 to 1

# The glyphs of each block side by side, one string a glyph row: '#' is ink.
_FONT_BLOCKS = (
    ("abcdefghi", """
..... #.... ..... ....# ..... ..##. ..... #.... ..#..
..... #.... ..... ....# ..... .#..# ..... #.... .....
.###. #.##. .###. .##.# .###. .#... .###. #.##. .##..
....# ##..# #.... #..## #...# ###.. #...# ##..# ..#..
.#### #...# #.... #...# ##### .#... .#### #...# ..#..
#...# #...# #...# #...# #.... .#... ....# #...# ..#..
.#### ####. .###. .#### .###. .#... .###. #...# .###.
"""),
    ("jklmnopqr", """
...#. #.... .##.. ..... ..... ..... ..... ..... .....
..... #.... ..#.. ..... ..... ..... ..... ..... .....
..##. #..#. ..#.. ##.#. #.##. .###. ####. .##.# #.##.
...#. #.#.. ..#.. #.#.# ##..# #...# #...# #..## ##..#
...#. ##... ..#.. #.#.# #...# #...# ####. .#### #....
#..#. #.#.. ..#.. #...# #...# #...# #.... ....# #....
.##.. #..#. .###. #...# #...# .###. #.... ....# #....
"""),
    ("stuvwxyz", """
..... .#... ..... ..... ..... ..... ..... .....
..... .#... ..... ..... ..... ..... ..... .....
.###. ###.. #...# #...# #...# #...# #...# #####
#.... .#... #...# #...# #...# .#.#. #...# ...#.
.###. .#... #...# #...# #.#.# ..#.. .#### ..#..
....# .#..# #..## .#.#. #.#.# .#.#. ....# .#...
####. ..##. .##.# ..#.. .#.#. #...# .###. #####
"""),
    ("0123456789", """
.###. ..#.. .###. ##### ...#. ##### ..##. ##### .###. .###.
#...# .##.. #...# ...#. ..##. #.... .#... ....# #...# #...#
#..## ..#.. ....# ..#.. .#.#. ####. #.... ...#. #...# #...#
#.#.# ..#.. ...#. ...#. #..#. ....# ####. ..#.. .###. .####
##..# ..#.. ..#.. ....# ##### ....# #...# .#... #...# ....#
#...# ..#.. .#... #...# ...#. #...# #...# .#... #...# ...#.
.###. .###. ##### .###. ...#. .###. .###. .#... .###. .##..
"""),
    # the space first
    (" .-_:'~", """
..... ..... ..... ..... ..... .##.. .....
..... ..... ..... ..... .##.. ..#.. .....
..... ..... ..... ..... .##.. .#... .#...
..... ..... ##### ..... ..... ..... #.#.#
..... ..... ..... ..... .##.. ..... ...#.
..... .##.. ..... ..... .##.. ..... .....
..... .##.. ..... ##### ..... ..... .....
"""),
)
# Drawn for a character the font lacks: an empty box.
_MISSING_ROWS = ("#####", "#...#", "#...#", "#...#", "#...#", "#...#", "#####")


def _glyph_points(rows):
    """The (x, y) points of a glyph given as rows of '#' and '.'."""
    return tuple((x, y) for y, row in enumerate(rows) for x, mark in enumerate(row) if mark == "#")


def _font():
    font = {}
    for chars, banner in _FONT_BLOCKS:
        rows = [line.split() for line in banner.strip("\n").split("\n")]
        for index, char in enumerate(chars):
            font[char] = _glyph_points([row[index] for row in rows])
    return font


FONT = _font()
MISSING = _glyph_points(_MISSING_ROWS)


def glyph(char):
    """The ink points of one character: small letters for capitals, a box for any it lacks."""
    return FONT.get(char.lower() if "A" <= char <= "Z" else char, MISSING)


def _text_width(text):
    return max(0, len(text) * ADVANCE - 1)


def _colour(ratio):
    ratio = max(0.0, min(1.0, ratio))
    if ratio < 0.5:
        return (220, int(40 + 320 * ratio), 40)
    return (int(220 - 360 * (ratio - 0.5)), 200, 40)


def _shared_domain(names):
    """The domain after the first dot that every name has, when it is a name (has a letter)."""
    domains = {name.partition(".")[2] if "." in name else None for name in names}
    domain = domains.pop() if len(domains) == 1 else None
    return domain if domain and any(char.isalpha() for char in domain) else None


def node_labels(names):
    """The row and column labels: names without their shared domain, long ones cut in the middle."""
    domain = _shared_domain(names)
    labels = [name[:-len(domain) - 1] if domain else name for name in names]
    tail = LABEL_CHARS - LABEL_HEAD - 1
    return [label if len(label) <= LABEL_CHARS else f"{label[:LABEL_HEAD]}~{label[-tail:]}" for label in labels]


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


Layout = collections.namedtuple("Layout", "labels cell gap grid_x grid_y legend_y width height")

SCALE_TITLE = "ratio to the cluster's reference"
DIAGONAL_NOTE = "diagonal: each node's own test"
SWATCHES = ((BROKEN, "broken"), (UNMEASURED, "not measured"))
# Lines of the legend: title, scale, its ticks, the swatches, the diagonal's note.
LEGEND_LINES = 4 + len(SWATCHES)
LEGEND_WIDTH = max(SCALE_WIDTH, _text_width(SCALE_TITLE), _text_width(DIAGONAL_NOTE))


def heat_map_layout(report, cell=None, gap=2):
    """Where everything goes: labels, cell side, grid's top left corner, legend's top, image size.

    `cell` None picks 24 pixels, less for more than 32 nodes; any cell is at least MIN_CELL.
    """
    labels = node_labels([row["node"] for row in report["nodes"]])
    count = len(labels)
    cell = max(MIN_CELL, cell or min(LARGEST_CELL, GRID_TARGET // max(1, count)))
    label_band = _text_width(max(labels, key=len, default="")) + LABEL_GAP
    grid_x = grid_y = MARGIN + label_band
    grid_side = count * (cell + gap) + gap
    legend_y = grid_y + grid_side + LINE
    width = max(grid_x + grid_side, MARGIN + LEGEND_WIDTH) + MARGIN
    height = legend_y + LEGEND_LINES * LINE + MARGIN
    return Layout(labels, cell, gap, grid_x, grid_y, legend_y, width, height)


class _Canvas:
    """An RGB image in memory, filled with the background."""

    def __init__(self, width, height):
        self.width, self.height = width, height
        self.pixels = bytearray(bytes(BACKGROUND) * (width * height))

    def fill(self, x, y, width, height, colour):
        run = bytes(colour) * width
        for row in range(y, y + height):
            start = 3 * (row * self.width + x)
            self.pixels[start:start + len(run)] = run

    def text(self, x, y, text, upward=False):
        """`text` with its top left at (x, y), or upward: read bottom to top from (x, y) as its bottom left."""
        for index, char in enumerate(text):
            for glyph_x, glyph_y in glyph(char):
                if upward:
                    self.dot(x + glyph_y, y - index * ADVANCE - glyph_x)
                else:
                    self.dot(x + index * ADVANCE + glyph_x, y + glyph_y)

    def dot(self, x, y):
        start = 3 * (y * self.width + x)
        self.pixels[start:start + 3] = _INK_BYTES

    def png(self):
        stride = 3 * self.width
        raw = b"".join(b"\x00" + self.pixels[row * stride:(row + 1) * stride] for row in range(self.height))
        return _png(self.width, self.height, raw)


def _draw_grid(canvas, layout, cells):
    pitch = layout.cell + layout.gap
    for row, colours in enumerate(cells):
        for column, colour in enumerate(colours):
            canvas.fill(layout.grid_x + layout.gap + column * pitch, layout.grid_y + layout.gap + row * pitch,
                        layout.cell, layout.cell, colour)


def _draw_labels(canvas, layout):
    """Row labels end just left of the grid; column labels start just above it and run upwards."""
    pitch = layout.cell + layout.gap
    centre = layout.gap + (layout.cell - GLYPH_HEIGHT) // 2
    for index, label in enumerate(layout.labels):
        canvas.text(layout.grid_x - LABEL_GAP - _text_width(label), layout.grid_y + centre + index * pitch, label)
        canvas.text(layout.grid_x + centre + index * pitch, layout.grid_y - LABEL_GAP, label, upward=True)


def _draw_legend(canvas, top):
    canvas.text(MARGIN, top, SCALE_TITLE)
    for step in range(SCALE_WIDTH):
        canvas.fill(MARGIN + step, top + LINE, 1, GLYPH_HEIGHT, _colour(step / (SCALE_WIDTH - 1)))
    canvas.text(MARGIN, top + 2 * LINE, "0")
    canvas.text(MARGIN + (SCALE_WIDTH - _text_width("0.5")) // 2, top + 2 * LINE, "0.5")
    canvas.text(MARGIN + SCALE_WIDTH - GLYPH_WIDTH, top + 2 * LINE, "1")
    for line, (colour, text) in enumerate(SWATCHES, start=3):
        canvas.fill(MARGIN, top + line * LINE, GLYPH_HEIGHT, GLYPH_HEIGHT, colour)
        canvas.text(MARGIN + GLYPH_HEIGHT + 3, top + line * LINE, text)
    canvas.text(MARGIN, top + (LEGEND_LINES - 1) * LINE, DIAGONAL_NOTE)


def heat_map_png(report, cell=None, gap=2):
    """PNG bytes of the node-by-node heat map with its labels and legend."""
    layout = heat_map_layout(report, cell, gap)
    canvas = _Canvas(layout.width, layout.height)
    _draw_grid(canvas, layout, heat_map_cells(report))
    _draw_labels(canvas, layout)
    _draw_legend(canvas, layout.legend_y)
    return canvas.png()


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _png(width, height, raw):
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 9))
            + _chunk(b"IEND", b""))
