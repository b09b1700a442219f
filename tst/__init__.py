"""tst: the reference pipeline for non-parallel text style transfer research."""


def __getattr__(name: str):
    if name == "__version__":  # the installed package's version (pyproject.toml), tst.signature.version
        from tst.signature import version

        return version()
    raise AttributeError(f"module 'tst' has no attribute {name!r}")
