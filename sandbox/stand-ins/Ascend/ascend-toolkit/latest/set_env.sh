# Environment of the CANN toolkit (sandbox stand-in: the directories exist but hold no libraries).
# Same variables as the real set_env.sh (which, like this one, does not put the driver's tools on
# PATH); POSIX sh, safe under `set -u`.
export ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/latest
export ASCEND_HOME_PATH=${ASCEND_TOOLKIT_HOME}
export ASCEND_AICPU_PATH=${ASCEND_TOOLKIT_HOME}
export ASCEND_OPP_PATH=${ASCEND_TOOLKIT_HOME}/opp
export TOOLCHAIN_HOME=${ASCEND_TOOLKIT_HOME}/toolkit
export LD_LIBRARY_PATH=${ASCEND_TOOLKIT_HOME}/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}
export PYTHONPATH=${ASCEND_TOOLKIT_HOME}/python/site-packages${PYTHONPATH:+:${PYTHONPATH}}
export PATH=${ASCEND_TOOLKIT_HOME}/bin${PATH:+:${PATH}}
