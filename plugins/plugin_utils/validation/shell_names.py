"""The one rule for environment variable names the suite writes into a shell script: a job's
job_env (job.env), the inventory's env mappings (env_npu.sh, launch scripts), npu_env_extra.
Every pattern is applied with fullmatch (`$` alone would accept a trailing newline)."""
import re

ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
# Names the shell owns: read-only in bash (UID, EUID, PPID, SHELLOPTS, BASHOPTS), reset by it on
# every command or read (_, RANDOM, LINENO, SECONDS, PWD, OLDPWD, SHLVL, ...), or changing how
# every later line of a sourced script is read (IFS, PS4 under xtrace) or what each new shell runs
# first (ENV, BASH_ENV). An assignment to one of them would not reach the job, or would break it.
SHELL_NAME = re.compile(r"_|BASH|BASH_[A-Z_]*|BASHOPTS|SHELLOPTS|BASHPID|UID|EUID|PPID|GROUPS|RANDOM|SRANDOM|"
                        r"LINENO|SECONDS|EPOCHSECONDS|EPOCHREALTIME|FUNCNAME|HISTCMD|DIRSTACK|PIPESTATUS|"
                        r"OPTIND|OPTARG|IFS|PS4|ENV|PWD|OLDPWD|SHLVL")
