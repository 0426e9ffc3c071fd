"""The Python API (`from arena import ...`): a match, a series, a tournament and a rendered log, in-process."""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

import arena
from arena import ArenaError, play_match, render, run_series, run_tournament
from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from tests.helpers import ROOT


def test_import_arena_stays_light() -> None:
    code = "import sys, arena; print(sorted(m for m in sys.modules if m.startswith(('arena.', 'zmq'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
    assert sorted(arena.__all__) == ["ArenaError", "RunStopped", "check_game_folder", "game_from_folder", "play_match",
                                     "render", "run_series", "run_tournament"]


def test_play_match_returns_the_json_of_arena_match(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = play_match("blocking", ["perfect", "random"], setup={"rows": 3, "cols": 3}, seed=7, budget_ms=5000)
    cli = subprocess.run([sys.executable, "-m", "arena.cli", "match", "blocking", "perfect", "random", "--set",
                          "rows=3", "--set", "cols=3", "--seed", "7", "--budget-ms", "5000", "--json"],
                         capture_output=True, text=True, cwd=tmp_path, check=True)
    expected = json.loads(cli.stdout)
    assert result.keys() == expected.keys()
    assert {k: v for k, v in result.items() if k != "log"} == {k: v for k, v in expected.items() if k != "log"}
    assert result["seed"] == 7 and verify(read_log(tmp_path / result["log"])).ok


def test_run_series_plays_pairs_and_stops_on_sprt(tmp_path: Path) -> None:
    data = run_series("blocking", ["perfect", "random"], 200, setup={"rows": 5, "cols": 5},
                      sprt={"elo0": 0, "elo1": 50}, out=tmp_path / "s", workers=2)
    assert data["sprt"] == "H1" and data["stopped_early"] and data["games"] == 2 * sum(data["pentanomial"])
    assert data["a"] == "perfect" and data["dir"] == str(tmp_path / "s")
    assert data.text.splitlines()[4] == (f"SPRT: H1 was accepted (LLR {data['llr']:.2f} >= 2.94) after "
                                         f"{data['games']} games (of 200 scheduled)")


def test_an_sprt_series_stops_at_the_same_game_whatever_the_workers(tmp_path: Path) -> None:
    # Mixed results (not every pair won): the order in which they are counted decides where the
    # SPRT stops, and it is the schedule's order, however many workers finish games out of it.
    runs = [run_series("blocking", ["maxblock", "sequential"], 2000, setup={"rows": 6, "cols": 6}, workers=workers,
                       sprt={"elo0": 0, "elo1": 10}, sandbox="none", out=tmp_path / str(workers))
            for workers in (1, 3)]
    for data in runs:
        assert data["sprt"] is not None and data["stopped_early"] and data["pentanomial"][2] > 0
    keys = ("games", "wins", "losses", "draws", "pentanomial", "llr", "sprt")
    assert [{k: data[k] for k in keys} for data in runs][0] == [{k: data[k] for k in keys} for data in runs][1]
    assert runs[0].text.split("results:")[0] == runs[1].text.split("results:")[0]


def test_run_tournament_from_a_dict(tmp_path: Path) -> None:
    config = {"name": "api", "game": "tiles", "bots": ["greedy", "random"], "seed": 3,
              "setups": {"random": {"count": 1}}, "games_per_pairing": 2}
    standings = run_tournament(config, out=tmp_path / "t", workers=1)
    assert standings["matches"] == {"scheduled": 2, "finished": 2, "played": 2, "forfeits": 0}
    assert (tmp_path / "t" / "standings.json").exists()
    with pytest.raises(ArenaError, match="already holds 2/2 results"):
        run_tournament(config, out=tmp_path / "t")


def test_render_shows_the_viewer_in_a_frame(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = play_match("blocking", ["perfect", "random"], setup={"rows": 3, "cols": 3}, seed=1)
    shown = render(result["log"])
    frame = shown._repr_html_()
    assert frame.startswith("<iframe srcdoc=\"") and 'sandbox="allow-scripts"' in frame
    assert "<script" not in frame  # the page is escaped into the attribute, not run in the notebook
    page = shown.save(tmp_path / "match.html").read_text()
    assert "perfect" in page and "<script" in page


@pytest.mark.parametrize(("call", "message"), [
    (lambda: play_match("chess", ["a", "b"]), "unknown game 'chess'"),
    (lambda: play_match("blocking", "perfect"), "a list of BOT specs"),
    (lambda: play_match("blocking", ["perfect", "nobody"]), "nobody"),
    (lambda: run_series("blocking", ["perfect", "random"], 3), "multiple of the seats"),
    (lambda: run_series("blocking", ["perfect", "random"], 0), "a positive number of games"),
    (lambda: run_tournament({"game": "blocking"}), "bots: missing"),
    (lambda: render("/nonexistent.msgpack"), "nonexistent"),
])
def test_bad_input_raises_arena_error(call, message: str) -> None:
    with pytest.raises(ArenaError, match=message):
        call()


def readme_snippet() -> str:
    """The README's Python API example (the python block of its "From Python" section)."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## From Python"):]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None
    return found.group(1)


def fresh_install(tmp_path: Path) -> Path:
    """A copy of the project in tmp_path/arena, installed editable into a venv of its own; its python."""
    clone = tmp_path / "arena"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for name in ("arena", "protocol", "bots"):
        shutil.copytree(ROOT / name, clone / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, clone / name)
    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env)
    python = env / "bin" / "python"
    packages = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                   capture_output=True, text=True, check=True).stdout.strip())
    # The dependencies come from this interpreter's site-packages; the build is pip's own, as a user's.
    (packages / "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "-e",
                    str(clone)], check=True, capture_output=True, timeout=300)
    return python


def test_the_readme_snippet_runs_as_a_script_and_from_stdin_beside_a_fresh_clone(tmp_path: Path) -> None:
    python = fresh_install(tmp_path)
    where = subprocess.run([python, "-c", "import arena; print(arena.__file__)"], cwd=tmp_path, capture_output=True,
                           text=True, check=True)
    # From the folder that holds the clone (a folder named arena): the package, not the folder.
    assert where.stdout.strip() == str(tmp_path / "arena" / "arena" / "__init__.py")
    script = tmp_path / "snippet.py"  # no __main__ guard: workers must not run it again
    script.write_text(readme_snippet())
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    outputs = []
    for command, stdin in (([python, str(script)], None), ([python, "-"], script.read_text())):
        done = subprocess.run(command, cwd=tmp_path, input=stdin, capture_output=True, text=True, timeout=600,
                              env=env)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        outputs.append(done.stdout)
    lines = outputs[0].splitlines()
    assert len(lines) == 3 and lines[0] == "[1, 2] blocked 7" and lines[1].startswith("H1 "), outputs[0]
    assert outputs[0] == outputs[1]  # twice in a row, the same: the second run does not trip over the first's results
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == [
        "blocking-maxblock-random-sequential", "blocking-maxblock-random-sequential-2", "perfect-vs-random",
        "perfect-vs-random-2"]


def test_the_api_in_a_notebook_kernel(tmp_path: Path) -> None:
    try:
        from jupyter_client.manager import start_new_kernel
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("jupyter_client is missing under CI (pip install -e '.[test]' installs it)")
        pytest.skip("jupyter_client is not installed")
    (tmp_path / "arena").mkdir()  # a folder of that name where the notebook runs shadows nothing
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(tmp_path))
    said: list[str] = []

    def collect(message: dict) -> None:
        content = message["content"]
        if message["msg_type"] == "stream":
            said.append(content["text"])
        elif message["msg_type"] == "error":
            said.append("ERROR " + "\n".join(content["traceback"]))
        elif message["msg_type"] == "execute_result":
            said.append("HTML " + content["data"].get("text/html", "")[:40])

    try:
        code = readme_snippet() + "\nrender(result['log'])\n"  # a cell's last value: the viewer, inline
        reply = client.execute_interactive(code, output_hook=collect, timeout=300)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    text = "".join(said)
    assert reply["content"]["status"] == "ok" and "ERROR" not in text, text
    assert text.splitlines()[0] == "[1, 2] blocked 7" and "HTML <iframe srcdoc=" in text
