"""`python -m latmc`: the latmc program's job from Python (short runs here; the default
job itself is run by tools/ci-python.sh only in its short form, see there)."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

import latmc
from latmc.__main__ import main


def test_short_ising_job(capsys):
    assert main(["-L", "16", "--beta", "0.44", "--therm", "100", "--sweeps", "2000"]) == 0
    out = capsys.readouterr().out
    for word in ("energy", "m2", "Binder U4", "susceptibility", "specific heat",
                 "acceptance", "16 x 16 = 256 sites"):
        assert word in out, word


def test_other_models_and_csv(tmp_path, capsys):
    assert main(["--model", "phi4", "-L", "8", "--param", "mu2=-1", "--param", "g=6",
                 "--therm", "50", "--sweeps", "500", "--csv", str(tmp_path / "s.csv")]) == 0
    assert (tmp_path / "s.csv").read_text().startswith("index,energy,abs_magnetization")
    assert main(["--model", "heisenberg", "-L", "4", "--beta", "2", "--replicas", "2",
                 "--couplings", "gaussian", "--therm", "10", "--sweeps", "200"]) == 0
    assert "overlap2" in capsys.readouterr().out


def test_library_error_exits_1(capsys):
    assert main(["-L", "7", "--beta", "0.4", "--sweeps", "10"]) == 1
    assert "LATMC_EINVAL" in capsys.readouterr().err


def test_unknown_model_is_a_usage_error(capsys):
    # the library's models (latmc.MODELS), checked as argparse's choices were
    with pytest.raises(SystemExit) as info:
        main(["--model", "xy", "-L", "8", "--beta", "0.4"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and "'xy'" in err and "'heisenberg'" in err


def test_temperature_rule_is_a_usage_error(capsys):
    # the program latmc's rule (doc/cli.md): no beta, no run; exit status 2 naming --beta
    with pytest.raises(SystemExit) as info:
        main(["--model", "ising", "-L", "8", "--sweeps", "10"])
    assert info.value.code == 2 and "--beta" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["--model", "phi4", "-L", "8", "--param", "mu2=-1", "--sweeps", "10"])
    assert info.value.code == 2 and "mu2=M" in capsys.readouterr().err


def test_as_a_program():
    r = subprocess.run([sys.executable, "-m", "latmc", "--model", "potts", "--q", "3",
                        "-L", "12", "--beta", "1.0", "--therm", "10", "--sweeps", "100"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "potts" in r.stdout
    r = subprocess.run([sys.executable, "-m", "latmc", "--bogus"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "usage" in r.stderr


def test_decisions_parameter(capsys):
    assert main(["--model", "ising", "-L", "64", "--beta", "0.4", "--param", "decisions=1",
                 "--therm", "20", "--sweeps", "50"]) == 0
    assert "decisions = 1" in capsys.readouterr().out


def test_cluster_algorithms(capsys):
    # --algo takes what latmc --algo takes: sw and wolff too
    for algo in ("sw", "wolff"):
        assert main(["-L", "16", "--beta", "0.44", "--algo", algo, "--therm", "20",
                     "--sweeps", "100"]) == 0
        assert re.search(r"algorithm +%s\n" % algo, capsys.readouterr().out)
