"""Every failure of the C library surfaces as a latmc.Error subclass carrying the
library's code and message; the Python layer's own checks raise the same classes."""
from __future__ import annotations

import numpy as np
import pytest

import latmc

EINVAL, EUNSUPPORTED, EIO, ECORRUPT, ESTATE = -1, -2, -7, -8, -9


def raises(cls, code, match=None):
    class Check:
        def __enter__(self):
            self.ctx = pytest.raises(cls, match=match)
            self.info = self.ctx.__enter__()
            return self.info

        def __exit__(self, *exc):
            r = self.ctx.__exit__(*exc)
            e = self.info.value
            assert isinstance(e, latmc.Error)
            assert e.code == code and e.status.startswith("LATMC_E") and e.message
            return r
    return Check()


@pytest.mark.parametrize("shape, why", [
    ((7, 8), "even"),            # Ising extents must be even: the library says so
    ((0, 8), "extent"),
    ((-4, 4), "extent"),
    ((8,), "ndim"),              # 1D: the library refuses ndim 1
    ((2, 2, 2, 2), "ndim"),      # 4D likewise
])
def test_bad_shapes_come_from_the_library(shape, why):
    with raises(latmc.InvalidArgument, EINVAL) as info:
        latmc.Sim("ising", shape, beta=0.4, device="cpu")
    assert why in info.value.message.lower() or "dimension" in info.value.message.lower()


def test_bad_shape_argument():
    with raises(latmc.InvalidArgument, EINVAL):
        latmc.Sim("ising", "big", beta=0.4)
    with raises(latmc.InvalidArgument, EINVAL):
        latmc.Sim("ising", (2, 2, 2, 2, 2), beta=0.4)


def test_phi4_extent_rule():
    with raises(latmc.InvalidArgument, EINVAL):
        latmc.Sim("phi4", (6, 6), mu2=-1.0, g=6.0, device="cpu")


def test_unknown_model_and_names():
    with raises(latmc.InvalidArgument, EINVAL, match="unknown model") as info:
        latmc.Sim("xy", (8, 8))
    assert all(m in str(info.value) for m in latmc.MODELS)
    with raises(latmc.InvalidArgument, EINVAL):
        latmc.Sim(17, (8, 8), device="cpu")  # a number the library does not know
    with raises(latmc.InvalidArgument, EINVAL, match="algorithm"):
        latmc.Sim("ising", (8, 8), beta=0.4, algorithm="glauber")
    with raises(latmc.InvalidArgument, EINVAL, match="device"):
        latmc.Sim("ising", (8, 8), beta=0.4, device="tpu")


def test_unsupported_combination():
    with raises(latmc.Unsupported, EUNSUPPORTED):
        latmc.Sim("ising", (8, 8), beta=0.4, algorithm="overrelax", device="cpu")
    with raises(latmc.Unsupported, EUNSUPPORTED):
        latmc.Sim("ising", (8, 8), beta=0.4, replicas=2, device="cpu")


def test_bad_params():
    with latmc.Sim("ising", (8, 8), beta=0.4, device="cpu") as sim:
        with raises(latmc.InvalidArgument, EINVAL, match="beta"):
            sim.params["beta"] = -0.5
        with raises(latmc.InvalidArgument, EINVAL):
            sim.params["beta"] = float("nan")
        with raises(latmc.InvalidArgument, EINVAL):
            sim.params["temperature"] = 1.0   # latmc_param_by_name refuses the name
        with raises(latmc.Unsupported, EUNSUPPORTED):
            sim.params["mu2"] = 1.0            # a phi^4 parameter
        with raises(latmc.Unsupported, EUNSUPPORTED):
            sim.params["nover"]
        assert sim.params["beta"] == 0.4       # nothing changed
        assert "beta" in sim.last_error or sim.last_error  # the sim kept the message
    with raises(latmc.InvalidArgument, EINVAL):
        latmc.Sim("phi4", (8, 8), mu2=-1.0, g=6.0, epsilon=0.0, device="cpu")
    with raises(latmc.InvalidArgument, EINVAL):
        latmc.Sim("phi4", (8, 8), mu2=-1.0, g=6.0, nhit=0, device="cpu")


def test_wrong_spins():
    with latmc.Sim("ising", (4, 4), beta=0.4, device="cpu") as sim:
        before = sim.spins
        with raises(latmc.InvalidArgument, EINVAL, match="dtype int8"):
            sim.spins = before.astype(np.int32)
        with raises(latmc.InvalidArgument, EINVAL, match="shape"):
            sim.spins = before.reshape(2, 8)
        with raises(latmc.InvalidArgument, EINVAL, match="shape"):
            sim.spins = before[:2]
        bad = before.copy()
        bad[0, 0] = 3                    # not +-1: the library checks every value
        with raises(latmc.InvalidArgument, EINVAL):
            sim.spins = bad
        np.testing.assert_array_equal(sim.spins, before)  # nothing changed
    with latmc.Sim("potts", (6, 6), beta=0.4, q=3, device="cpu") as sim:
        with raises(latmc.InvalidArgument, EINVAL):
            sim.spins = np.full((6, 6), 3, np.uint8)       # state q is out of range
        with raises(latmc.InvalidArgument, EINVAL, match="dtype uint8"):
            sim.spins = np.zeros((6, 6), np.int8)
    with latmc.Sim("phi4", (8, 8), mu2=-1.0, g=6.0, precision="float", device="cpu") as sim:
        with raises(latmc.InvalidArgument, EINVAL, match="float32"):
            sim.spins = np.zeros((8, 8))                    # float64 for a float field
        with raises(latmc.InvalidArgument, EINVAL):
            sim.spins = np.full((8, 8), np.inf, np.float32)
    with latmc.Sim("heisenberg", (4, 4, 4), beta=0.4, device="cpu") as sim:
        with raises(latmc.InvalidArgument, EINVAL):
            sim.spins = np.zeros((4, 4, 4, 3), np.float32)  # not unit vectors


def test_wrong_couplings():
    with latmc.Sim("ising", (4, 4), beta=0.4, device="cpu") as sim:
        with raises(latmc.Unsupported, EUNSUPPORTED):
            sim.couplings                                    # uniform Ising has none
    with latmc.Sim("ising", (4, 4), beta=0.4, couplings="bimodal", device="cpu") as sim:
        with raises(latmc.InvalidArgument, EINVAL):
            sim.couplings = np.full((4, 4, 2), 0.5, np.float32)  # Ising: exactly +-1
        with raises(latmc.InvalidArgument, EINVAL, match="float32"):
            sim.couplings = np.ones((4, 4, 2))


def test_state_errors():
    with latmc.Sim("ising", (4, 4), beta=0.4, init=None, device="cpu") as sim:
        with raises(latmc.StateError, ESTATE):
            sim.sweep(1)
        with raises(latmc.StateError, ESTATE):
            sim.energy
        with raises(latmc.StateError, ESTATE):
            sim.spins
        sim.init_spins("cold")
        with raises(latmc.StateError, ESTATE):
            sim.acceptance                                   # nothing attempted yet
        with raises(latmc.InvalidArgument, EINVAL):
            sim.init_spins("lukewarm")
        with raises(latmc.Unsupported, EUNSUPPORTED):
            sim.overlap2
        with raises(latmc.Unsupported, EUNSUPPORTED):
            sim.tune_epsilon(0.5, 10)
        with raises(latmc.InvalidArgument, EINVAL):
            sim.observable("entropy")
        with pytest.raises(latmc.InvalidArgument):
            sim.sweep(-1)


def test_files(tmp_path):
    with raises(latmc.FileError, EIO):
        latmc.load(tmp_path / "missing.ckpt")
    with latmc.Sim("ising", (4, 4), beta=0.4, device="cpu") as sim:
        with raises(latmc.FileError, EIO):
            sim.save(tmp_path / "no-such-dir" / "x.ckpt")
        sim.save(tmp_path / "good.ckpt")
    data = bytearray((tmp_path / "good.ckpt").read_bytes())
    (tmp_path / "short.ckpt").write_bytes(bytes(data[:len(data) // 2]))
    with raises(latmc.CorruptFile, ECORRUPT):
        latmc.load(tmp_path / "short.ckpt")
    data[len(data) // 2] ^= 0x40
    (tmp_path / "flipped.ckpt").write_bytes(bytes(data))
    with raises(latmc.CorruptFile, ECORRUPT):
        latmc.load(tmp_path / "flipped.ckpt")
    with raises(latmc.CorruptFile, ECORRUPT):
        latmc.deserialize(b"LATMCCKP" + bytes(40))


def test_cuda_absent_is_an_error_not_a_fallback():
    if latmc.devices()[-1].device == "cuda":
        pytest.skip("this machine has a usable GPU")
    with pytest.raises((latmc.BackendError, latmc.NoDevice, latmc.Unsupported)) as info:
        latmc.Sim("ising", (8, 8), beta=0.4, device="cuda")
    assert info.value.code in (-3, -4, -2) and info.value.message
    with pytest.raises(latmc.Error):
        latmc.device_count("cuda")


def test_exception_hierarchy():
    assert issubclass(latmc.InvalidArgument, ValueError)
    assert issubclass(latmc.FileError, OSError)
    assert issubclass(latmc.OutOfMemory, MemoryError)
    assert issubclass(latmc.ClosedError, latmc.StateError)
    for cls in (latmc.InvalidArgument, latmc.Unsupported, latmc.BackendError, latmc.NoDevice,
                latmc.DeviceError, latmc.OutOfMemory, latmc.FileError, latmc.CorruptFile,
                latmc.StateError, latmc.Cancelled):
        assert issubclass(cls, latmc.Error) and cls.code < 0
    e = latmc.InvalidArgument("x")
    assert "LATMC_EINVAL" in str(e) and "invalid argument" in str(e)
