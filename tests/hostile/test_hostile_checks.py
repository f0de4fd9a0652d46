"""The shell checks of the hostile corpus catch what they are there for (so a green corpus means
something): unquoted values, comment break-outs, non-plain command lines, wrong read-backs."""
import shlex

import pytest

from hostile_corpus import ENV_BLOCK, HAND, bash_words, env_values, generate, pool, unsafe_count


@pytest.mark.parametrize("template, value, unsafe", [
    ("x=%s\n", "a;b", 1),
    ("x=%s\n", "$(id)", 1),
    ("x='%s'\n", "a;b", 0),
    ('x="%s"\n', "a b", 0),
    ('x="%s"\n', "$(id)", 1),
    ("# job %s here\n", "a;b", 0),
    ("# job %s here\nrc=0\n", "a\nid", 1),
    ("run %s\n", "plain-word", 0),
    ("x=" + "%s" + "\n", shlex.quote("it's $(id)"), 0),
])
def test_unsafe_count(template, value, unsafe):
    text = template % value if "%s" in template else template
    wanted = value if not value.startswith("'") else "it's $(id)"
    assert unsafe_count(text, wanted) == unsafe


def test_bash_words_reads_quoted_words_and_refuses_anything_else():
    values = ["a b", "it's", '"q"', "$(id)", "`id`", "a;b", "~", "é", "x" * 4096, ""]
    command = "msrun \\\n  --log_dir=\"$CS_LOG_DIR\" \\\n  " + " ".join(shlex.quote(v) for v in values)
    assert bash_words(command) == ["msrun", "--log_dir=/L"] + values
    for bad in ("echo $(id)", "a;b", "echo `id`", "a && b", 'a "$(id)"', "a > /tmp/x", "a\x00b"):
        with pytest.raises(ValueError):
            bash_words(bad)


def test_env_values_reads_job_env_and_refuses_broken_blocks(tmp_path):
    good = tmp_path / "job.env"
    good.write_text("export A=1\n# job_env\nexport X=%s\nexport Y=plain\n" % shlex.quote("a'b\n$(c)"))
    assert env_values(str(good), ["X", "Y"]) == {"X": "a'b\n$(c)", "Y": "plain"}
    bad = tmp_path / "bad" / "job.env"
    bad.parent.mkdir()
    bad.write_text("# job_env\nexport X=a b\n")
    with pytest.raises(ValueError):
        env_values(str(bad), ["X"])
    assert not ENV_BLOCK.fullmatch("export X=$(id)\n")


def test_generation_is_fixed_and_varied():
    assert pool() == pool() and len(pool()) >= 500
    first, second = generate("job_args", ["a"]), generate("job_python", ["a"])
    assert first == generate("job_args", ["a"]) and first != second
    assert set(HAND) <= set(first) and not any("{{" in v or "{%" in v for v in first + second)
