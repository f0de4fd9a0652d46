"""Action ssh_trust_user_keys: create the training user or add it to the NPU driver's group where
asked (module user), read the cluster key pair on the controller and install it in the user's
~/.ssh on the node (module ssh_trust_key_files), in one task. Options and results are documented
in plugins/modules/ssh_trust_user_keys.py."""
import os

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.node_action import NodeAction, StepFailed


def _read(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def _said(result):
    """``result`` shown at any verbosity, as a debug task's: a check-mode skip says why."""
    return dict(result, _ansible_verbose_always=True)


class ActionModule(NodeAction):
    ARGUMENT_SPEC = dict(
        user=dict(type="str", required=True),
        key_dir=dict(type="path", required=True),
        comment=dict(type="str", required=True),
        create=dict(type="bool", default=False),
        shell=dict(type="str", default="/bin/bash"),
        add_groups=dict(type="list", elements="str", default=[]),
    )

    def act(self, args):
        account = self.account(args)
        result = self.keys(args)
        if account["changed"]:
            result = dict(result, changed=True, skipped=False)
        return dict(result, **{name: account[name] for name in ("user_created", "groups_added")})

    def account(self, args):
        """Create the user (with a home) and add it to ``add_groups`` where asked; an existing user is
        otherwise left as it is."""
        created = args["create"] and self.module("ansible.builtin.user", dict(
            name=args["user"], shell=args["shell"], create_home=True, state="present"))["changed"]
        added = bool(args["add_groups"]) and self.module("ansible.builtin.user", dict(
            name=args["user"], groups=args["add_groups"], append=True))["changed"]
        if added and not self._task.check_mode:
            # A login takes its groups when it starts: the SSH connection Ansible keeps open
            # (ControlPersist) would run the next tasks, and a launch, without the new group.
            self._connection.reset()
        return dict(changed=created or added, user_created=created, groups_added=args["add_groups"] if added else [])

    def keys(self, args):
        key = os.path.join(args["key_dir"], "id_ed25519")
        public_key, private_key = _read(key + ".pub"), _read(key)
        if not public_key or not private_key:
            if self._task.check_mode:
                return _said(dict(changed=False, skipped=True, changed_files=[], removed_keys=[], msg=(
                    "check mode: the cluster key pair does not exist yet in %s, so its installation is "
                    "skipped (a real run generates it first)" % args["key_dir"])))
            raise StepFailed(dict(msg="the cluster key pair is not in %s (id_ed25519 and id_ed25519.pub)" % args["key_dir"]))
        files = self.module("cluster_suite.hpc.ssh_trust_key_files", dict(
            user=args["user"], private_key=private_key, public_key=" ".join(public_key.split()[:2]),
            comment=args["comment"]))
        result = {name: files[name] for name in ("changed", "changed_files", "removed_keys", "diff", "skipped", "msg")
                  if name in files}
        return _said(result) if result.get("skipped") else result
