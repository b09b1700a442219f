"""A --config file that holds no mapping (a YAML list, a scalar, nothing) stops tst score, tst transfer and tst
cost with exit 2, one line naming the file and what a config file holds, before any work: no traceback."""

import pytest

from tst.cli import main
from tst.io import write_lines

FORMS = {
    "list": ("- datasets\n- demo\n", "it holds a YAML list (2 items)"),
    "scalar": ("demo\n", "it holds a YAML str ('demo')"),
    "empty": ("", "it is empty (no YAML document, or null)"),
}


def argv(command: str, tmp_path, config) -> list[str]:
    """The command's line with every file it checks present, so that the config is what stops it."""
    write_lines(tmp_path / "test.0.txt", ["the food was bad"])
    write_lines(tmp_path / "out.0.txt", ["the food was good"])
    (tmp_path / "demo").mkdir(exist_ok=True)
    if command == "score":
        return ["score", "--dataset-dir", str(tmp_path / "demo"), "--sources", str(tmp_path / "test.0.txt"),
                "--outputs", str(tmp_path / "out.0.txt"), "--config", str(config)]  # fmt: skip
    if command == "transfer":
        (tmp_path / "ep1.0.pt").write_bytes(b"never loaded")
        return ["transfer", str(tmp_path / "ep1.0.pt"), "--dataset-dir", str(tmp_path / "demo"), "--to-style", "1",
                "--input", str(tmp_path / "test.0.txt"), "--config", str(config)]  # fmt: skip
    (tmp_path / "rates.json").write_text("{}")
    return ["cost", "--config", str(config), "--rates", str(tmp_path / "rates.json"), "--root", str(tmp_path)]


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("command", ["score", "transfer", "cost"])
def test_a_config_that_is_no_mapping_stops_the_command_naming_the_file(command, form, tmp_path, capsys):
    text, words = FORMS[form]
    config = tmp_path / f"{form}.yaml"
    config.write_text(text)
    with pytest.raises(SystemExit) as e:
        main(argv(command, tmp_path, config))
    err = capsys.readouterr().err
    assert e.value.code == 2, err
    assert err == (
        f"tst {command}: error: --config {config}: {words}, not a mapping of config keys; a config file holds "
        "keys at its top level (key: value, as config.yaml), and the workflow refuses it too\n"
    )
