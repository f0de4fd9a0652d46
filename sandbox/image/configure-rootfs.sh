#!/usr/bin/env bash
# Turns a debootstrapped root file system into a sandbox node: sshd as the main process (flavour
# sshd) or as a unit of systemd (flavour systemd), per-container host keys, key-only SSH, no apt
# caches.
set -euo pipefail
rootfs=$1
flavour=${2:-sshd}
here=$(cd "$(dirname "$0")" && pwd)

install -m 0755 "$here/sandbox-init" "$rootfs/usr/local/sbin/sandbox-init"
rm -f "$rootfs"/etc/ssh/ssh_host_*
mkdir -p "$rootfs/run/sshd" "$rootfs/root/.ssh"
chmod 0700 "$rootfs/root/.ssh"
cat >"$rootfs/etc/ssh/sshd_config.d/sandbox.conf" <<'CONF'
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UseDNS no
MaxStartups 100:30:200
MaxSessions 100
CONF
# A container has no console login; pam_loginuid fails without CAP_AUDIT_CONTROL.
sed -i 's/^session\s\+required\s\+pam_loginuid.so/session optional pam_loginuid.so/' "$rootfs/etc/pam.d/sshd"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
echo 'sandbox-node' >"$rootfs/etc/hostname"
# The NPU driver's running user and group, as the driver's installer creates them (Ascend's
# driver installation guide: groupadd HwHiAiUser; useradd -g HwHiAiUser -d /home/HwHiAiUser -m
# HwHiAiUser -s /bin/bash): the device files belong to this group (sandbox-init).
chroot "$rootfs" groupadd HwHiAiUser
chroot "$rootfs" useradd -g HwHiAiUser -d /home/HwHiAiUser -m -s /bin/bash HwHiAiUser
# CANN's runtime libraries (stand-ins, sandbox/image/ascend-runtime/): the toolkit's lib64
# (mounted from sandbox/stand-ins/) links here, as the headers they implement are the toolkit's.
runtime=$rootfs/opt/sandbox-ascend
mkdir -p "$runtime/lib64" "$runtime/src"
cp "$here/ascend-runtime/"*.c "$runtime/src/"
cp -r "$here/../stand-ins/Ascend/ascend-toolkit/latest/include" "$runtime/src/include"
chroot "$rootfs" gcc -O2 -Wall -Werror -shared -fPIC -I/opt/sandbox-ascend/src/include \
  -o /opt/sandbox-ascend/lib64/libascendcl.so /opt/sandbox-ascend/src/acl.c
chroot "$rootfs" gcc -O2 -Wall -Werror -shared -fPIC -I/opt/sandbox-ascend/src/include \
  -o /opt/sandbox-ascend/lib64/libhccl.so /opt/sandbox-ascend/src/hccl.c \
  -L/opt/sandbox-ascend/lib64 -lascendcl -ldl
rm -rf "$runtime/src"
# Nodes run with --no-hosts so that /etc/hosts is an ordinary file the ssh_trust role manages.
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$rootfs/etc/hosts"

if [ "$flavour" = systemd ]; then
  install -m 0644 "$here/sandbox-boot.service" "$rootfs/etc/systemd/system/sandbox-boot.service"
  # Units a container has no use for (no console, no kernel to tune) only fail and slow the boot.
  chroot "$rootfs" systemctl -q mask getty@tty1.service console-getty.service \
    systemd-udevd.service systemd-udev-trigger.service systemd-modules-load.service \
    systemd-sysctl.service systemd-remount-fs.service sys-kernel-config.mount \
    sys-kernel-debug.mount sys-kernel-tracing.mount
  chroot "$rootfs" systemctl -q enable sandbox-boot.service ssh.service firewalld.service
  # Installed as on a stock Ubuntu server: present, off until the role or a test turns it on.
  chroot "$rootfs" systemctl -q enable ufw.service
fi
