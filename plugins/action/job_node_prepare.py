"""Action job_node_prepare: a launch's writes on one node in one task: the job directories
(module job_workspace), the rendered scripts and private files (module rendered_files), the code
directory (action copy) and the job's setup command. Options and results are documented in
plugins/modules/job_node_prepare.py."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.node_action import NodeAction


class ActionModule(NodeAction):
    ARGUMENT_SPEC = dict(
        workspace=dict(type="dict", required=True),
        root=dict(type="path", required=True),
        files=dict(type="list", elements="dict", required=True),
        private_files=dict(type="list", elements="dict", default=[], no_log=True),
        code_src=dict(type="path"),
        setup=dict(type="list", elements="str"),
    )

    def act(self, args):
        workspace = self.module("cluster_suite.hpc.job_workspace", args["workspace"])
        written = self.module("cluster_suite.hpc.rendered_files", dict(
            root=args["root"], files=args["files"], private_files=args["private_files"]))
        changed = workspace.get("changed", False) or written["changed"]
        code = None
        if args["code_src"]:
            code = self.action("ansible.builtin.copy", dict(src=args["code_src"].rstrip("/") + "/",
                                                           dest=args["root"] + "/code/", mode="preserve"))
            changed = changed or code.get("changed", False)
        setup = None
        if args["setup"]:
            setup = self.module("ansible.builtin.command", dict(argv=args["setup"]))
            # The command module skips itself in check mode.
            changed = changed or not setup.get("skipped", False)
        return dict(changed=changed, workspace=workspace, written=written["written"],
                    unchanged=written["unchanged"], code_changed=bool(code and code.get("changed")),
                    setup=None if setup is None else {key: setup.get(key) for key in ("rc", "stdout", "stderr")})
