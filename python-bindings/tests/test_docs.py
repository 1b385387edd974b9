"""docs/python.md's examples run as written."""

import re

from conftest import SOURCE_DIR


def test_python_md_examples(tmp_path, monkeypatch, capsys):
    text = (SOURCE_DIR / "docs/python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 4
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for block in blocks:
        exec(compile(block, "docs/python.md", "exec"), namespace)
    assert "wgmma" in capsys.readouterr().out
