"""Action acceptance_heat_map: write the acceptance report's heat map PNG on the controller.

Options and results are documented in plugins/modules/acceptance_heat_map.py.
"""
import os
import tempfile

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance.heat_map import heat_map_png
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.controller_action import ActionError, ControllerAction


def write_atomically(dest, data):
    """Replace ``dest`` with ``data`` through a temporary file in its directory."""
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(dest)), prefix=".heat_map.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, dest)
    except OSError as error:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise ActionError(f"acceptance_heat_map: cannot write {dest}: {error}") from error


class ActionModule(ControllerAction):
    ARGUMENT_SPEC = {
        "report": {"type": "dict", "required": True},
        "dest": {"type": "path", "required": True},
        "cell": {"type": "int"},
    }

    def act(self, args, check_mode):
        dest = args["dest"]
        try:
            data = heat_map_png(args["report"], cell=args["cell"])
        except (KeyError, TypeError, ValueError) as error:
            raise ActionError(f"acceptance_heat_map: not an acceptance report: {error!r}") from error
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        old = None
        if os.path.isfile(dest) and not os.path.islink(dest):
            with open(dest, "rb") as handle:
                old = handle.read()
        changed = old != data
        if changed and not check_mode:
            write_atomically(dest, data)
        return dict(changed=changed, dest=dest, width=width, height=height)
