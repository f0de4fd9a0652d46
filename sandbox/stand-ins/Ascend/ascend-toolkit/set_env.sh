# Entry point users source (`. /usr/local/Ascend/ascend-toolkit/set_env.sh`), as in a real CANN
# install. A small file rather than a symlink so that git and read-only mounts keep it as is.
. /usr/local/Ascend/ascend-toolkit/latest/set_env.sh
