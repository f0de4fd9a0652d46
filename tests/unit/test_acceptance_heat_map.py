"""plugins/plugin_utils/acceptance/heat_map.py and module acceptance_heat_map: the PNG it writes, decoded
here with zlib and struct (chunks, CRCs, filter bytes), read pixel by pixel."""
import itertools
import struct
import zlib
from pathlib import Path

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance import heat_map
from ansible_collections.cluster_suite.hpc.plugins.action.acceptance_heat_map import ActionModule
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.controller_action import ActionError

# The empty box the font draws for a character it lacks, written out again here on purpose.
BOX = ("#####", "#...#", "#...#", "#...#", "#...#", "#...#", "#####")


class Image:
    """A decoded 8-bit RGB PNG."""

    def __init__(self, data):
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        chunks, offset = [], 8
        while offset < len(data):
            (length,) = struct.unpack(">I", data[offset:offset + 4])
            kind, body = data[offset + 4:offset + 8], data[offset + 8:offset + 8 + length]
            (crc,) = struct.unpack(">I", data[offset + 8 + length:offset + 12 + length])
            assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
            chunks.append((kind, body))
            offset += 12 + length
        assert [kind for kind, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
        self.width, self.height, depth, colour_type = struct.unpack(">IIBB", chunks[0][1][:10])
        assert (depth, colour_type) == (8, 2)
        raw = zlib.decompress(chunks[1][1])
        stride = 1 + 3 * self.width
        assert len(raw) == self.height * stride
        assert all(raw[row * stride] == 0 for row in range(self.height))
        self.rows = [raw[row * stride + 1:(row + 1) * stride] for row in range(self.height)]

    def pixel(self, x, y):
        return tuple(self.rows[y][3 * x:3 * x + 3])

    def block(self, left, top, width, height):
        """The pixels of a rectangle, row by row."""
        return [[self.pixel(x, y) for x in range(left, left + width)] for y in range(top, top + height)]

    def inked(self, left, top, width, height):
        """How many pixels of the rectangle have the text's colour."""
        return sum(row.count(heat_map.INK) for row in self.block(left, top, width, height))


def report(nodes, pairs=(), intra=None):
    """A report as the judge makes it, reduced to what the heat map reads; pairs not given are not measured."""
    intra = intra or {}
    return {
        "nodes": [{"node": node, "status": "ok", "intra_ratio": intra.get(node, 1.0)} for node in nodes],
        "pairs": [{"pair": [a, b], "status": "broken" if ratio is None else "ok", "ratio": ratio}
                  for a, b, ratio in pairs],
    }


def render(data_report, **options):
    return Image(heat_map.heat_map_png(data_report, **options)), heat_map.heat_map_layout(data_report, **options)


def cell_centre(layout, row, column):
    pitch = layout.cell + layout.gap
    return (layout.grid_x + layout.gap + column * pitch + layout.cell // 2,
            layout.grid_y + layout.gap + row * pitch + layout.cell // 2)


def row_label_band(layout, row):
    """Left of the grid, as high as the row's cells."""
    return (0, layout.grid_y + layout.gap + row * (layout.cell + layout.gap), layout.grid_x, layout.cell)


def column_label_band(layout, column):
    """Above the grid, as wide as the column's cells."""
    return (layout.grid_x + layout.gap + column * (layout.cell + layout.gap), 0, layout.cell, layout.grid_y)


def names(count, width=5):
    return [f"node{number}".rjust(width, "x") for number in range(1, count + 1)]


def test_size_grows_with_the_nodes():
    small, large = (render(report(names(count, 6)))[0] for count in (8, 16))
    assert large.height - small.height == 8 * (24 + 2)
    assert large.width - small.width == 8 * (24 + 2)


def test_size_grows_with_the_names_up_to_the_limit():
    widths = {length: render(report(names(8, length)))[0].width for length in (10, 16, 17, 40)}
    assert widths[16] - widths[10] == 6 * heat_map.ADVANCE
    assert widths[17] == widths[40] == widths[16]


def test_long_names_keep_their_ends_and_a_shared_domain_is_left_out():
    assert heat_map.node_labels(["ascend-training-server-0012", "short"]) == ["ascend-~ver-0012", "short"]
    assert heat_map.node_labels(["n1.hpc.example.com", "n2.hpc.example.com"]) == ["n1", "n2"]
    assert heat_map.node_labels(["n1.hpc.ex.com", "n2.lab.ex.com"]) == ["n1.hpc.ex.com", "n2.lab.ex.com"]
    assert heat_map.node_labels(["10.0.0.1", "10.0.0.2"]) == ["10.0.0.1", "10.0.0.2"]
    assert heat_map.node_labels(["10.0.1.5", "10.0.2.5"]) == ["10.0.1.5", "10.0.2.5"]


def test_cells_show_broken_slow_ok_and_unmeasured_pairs():
    nodes = ["a1", "b2", "c3", "d4"]
    image, layout = render(report(nodes, [("a1", "b2", None), ("a1", "c3", 0.3), ("b2", "c3", 1.0)]))
    assert image.pixel(*cell_centre(layout, 0, 1)) == image.pixel(*cell_centre(layout, 1, 0)) == heat_map.BROKEN
    slow, ok = image.pixel(*cell_centre(layout, 2, 0)), image.pixel(*cell_centre(layout, 2, 1))
    assert slow[0] > ok[0] and slow[1] < ok[1]
    assert ok[1] > ok[0]
    assert image.pixel(*cell_centre(layout, 3, 0)) == heat_map.UNMEASURED
    # the layout is where the image has its cells: background up to the first cell's corner
    corner_x, corner_y = layout.grid_x + layout.gap, layout.grid_y + layout.gap
    assert image.pixel(corner_x - 1, corner_y) == image.pixel(corner_x, corner_y - 1) == heat_map.BACKGROUND
    assert image.pixel(corner_x, corner_y) == image.pixel(*cell_centre(layout, 0, 0))


def test_every_row_and_column_is_labelled_and_the_label_is_the_name():
    nodes = names(6)
    image, layout = render(report(nodes))
    for index in range(len(nodes)):
        assert image.inked(*row_label_band(layout, index)) > 10
        assert image.inked(*column_label_band(layout, index)) > 10
    renamed, _ = render(report(nodes[:2] + ["node9"] + nodes[3:]))
    for band in (row_label_band, column_label_band):
        assert renamed.block(*band(layout, 2)) != image.block(*band(layout, 2))
        assert renamed.block(*band(layout, 1)) == image.block(*band(layout, 1))


def test_capitals_are_drawn_as_small_letters():
    image, layout = render(report(["NODE1", "Node2"]))
    lower, _ = render(report(["node1", "node2"]))
    assert image.rows == lower.rows
    assert layout.labels == ["NODE1", "Node2"]


def test_a_character_the_font_lacks_is_drawn_as_a_box():
    image, layout = render(report(["ab*", "abc"]))
    top = layout.grid_y + layout.gap + (layout.cell - heat_map.GLYPH_HEIGHT) // 2
    left = layout.grid_x - heat_map.LABEL_GAP - heat_map.GLYPH_WIDTH
    drawn = ["".join("#" if pixel == heat_map.INK else "." for pixel in row)
             for row in image.block(left, top, heat_map.GLYPH_WIDTH, heat_map.GLYPH_HEIGHT)]
    assert drawn == list(BOX)
    other, _ = render(report(["ab#", "abc"]))
    assert other.rows == image.rows


def test_legend_scale_runs_from_red_to_green_with_swatches_below():
    image, layout = render(report(names(2)))
    red, green = (image.pixel(heat_map.MARGIN + step, layout.legend_y + heat_map.LINE) for step in (0, 100))
    assert red[0] > red[1] and green[1] > green[0]
    assert image.pixel(heat_map.MARGIN + 1, layout.legend_y + 3 * heat_map.LINE + 1) == heat_map.BROKEN
    assert image.pixel(heat_map.MARGIN + 1, layout.legend_y + 4 * heat_map.LINE + 1) == heat_map.UNMEASURED
    for line in (0, 2, 3, 4, 5):
        assert image.inked(heat_map.MARGIN, layout.legend_y + line * heat_map.LINE, image.width - 8, 7) > 5
    assert layout.legend_y + 6 * heat_map.LINE <= image.height


def test_one_node_renders():
    image, layout = render(report(["node1"], intra={"node1": 0.2}))
    assert image.pixel(*cell_centre(layout, 0, 0))[0] == 220
    assert image.inked(*row_label_band(layout, 0)) > 10


def test_128_nodes_render_small():
    nodes = [f"gpu-node-{number:03d}.cluster.example.com" for number in range(1, 129)]
    pairs = [(a, b, None if index % 13 == 0 else index % 11 / 10)
             for index, (a, b) in enumerate(itertools.combinations(nodes, 2))]
    data = heat_map.heat_map_png(report(nodes, pairs))
    assert len(data) < 3 * 2 ** 20
    image, layout = Image(data), heat_map.heat_map_layout(report(nodes, pairs))
    assert layout.cell == heat_map.MIN_CELL and layout.labels[127] == "gpu-node-128"
    assert image.width < 1500 and image.height < 1500
    assert image.pixel(*cell_centre(layout, 1, 0)) == heat_map.BROKEN  # the first pair, node 1 with node 2
    assert image.inked(*row_label_band(layout, 127)) > 10
    assert image.inked(*column_label_band(layout, 127)) > 10


def run_module(tmp_path, args, check=False):
    """The action plugin's work, as its run() calls it (the Ansible frame is tested in test_collection)."""
    action = ActionModule.__new__(ActionModule)
    try:
        return action.act(dict({"cell": None}, **args), check)
    except ActionError as error:
        return {"failed": True, "msg": str(error)}


def test_module_writes_once_and_reports_the_size(tmp_path):
    dest = tmp_path / "heat_map.png"
    args = {"report": report(names(3), [("node1", "node2", 0.9)]), "dest": str(dest)}
    checked = run_module(tmp_path, args, check=True)
    assert checked["changed"] and not dest.exists()
    written = run_module(tmp_path, args)
    image = Image(dest.read_bytes())
    assert written["changed"] and (written["width"], written["height"]) == (image.width, image.height)
    assert run_module(tmp_path, args)["changed"] is False
    failed = run_module(tmp_path, {"report": {"nodes": []}, "dest": str(dest)})
    assert failed["failed"] and "not an acceptance report" in failed["msg"]
