"""Sphinx configuration of the scopa-sim documentation (``make docs``)."""

from __future__ import annotations

from scopa_sim import __version__  # the installed package (make docs: .venv's Sphinx)


def _load_every_command() -> None:
    """Register the commands the CLI imports only when used (``LAZY_COMMANDS``) on the group:
    sphinx-click documents a group's registered commands only, once it has any (``variants``
    and ``rules`` are registered eagerly), so without this the reference lists two commands."""
    import click
    from scopa_sim_cli.main import LAZY_COMMANDS, cli

    ctx = click.Context(cli)
    for name in LAZY_COMMANDS:
        command = cli.get_command(ctx, name)
        if command is not None:
            cli.add_command(command, name)


_load_every_command()

project = "scopa-sim"
author = "the scopa-sim developers"
copyright = "2026, the scopa-sim developers"
version = release = __version__

extensions = [
    # MyST-NB: MyST Markdown (it loads myst-parser) and the tutorial notebook, rendered
    # with the outputs committed in it; tests/docs/test_tutorial.py executes it instead of the
    # docs build, which then needs no kernel and no compiled kernels.
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sphinx_click",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
nb_execution_mode = "off"
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autosummary_generate = True
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# The kernels are numba dispatchers: documented through the Python API that wraps them.
autodoc_mock_imports: list[str] = []

# A type named in a field's annotation (``dealer_margin: Estimate``) is looked up by its
# bare name: the notebook API's Estimate (documented where it is defined and where the API
# re-exports it) and the statistics' one match it alike. Sphinx links the first; its
# "more than one target" warning would fail the -W build for no broken link.
suppress_warnings = ["ref.python"]

html_theme = "furo"
html_title = f"scopa-sim {release}"
html_static_path: list[str] = []
