"""Optional compiled build: `CIRULLA_COMPILE=1 pip install .` compiles the engine's hot
modules with mypyc (about 1.4x faster play, which the bots' search feels most), and the
search bots' playouts and tree search with them (bots/playouts.py, bots/evaluate.py:
about 1.4x more ISMCTS iterations a second again; bots/leafvalue.py, the cut playouts'
learned value), and the opponent model's evidence
and determinization samplers (bots/inference.py, bots/posterior.py: what sampling by
the model costs campione a move, halved).

A compiled module must decide exactly as its source does when run as Python: the same
draws from the bots' generators, the same float arithmetic in the same order, the same
tie-breaks (tests/test_bots_search_pinned.py pins the search bots' moves and runs on
both builds in CI). A class compiled here cannot inherit from one that is not, so the
bot classes stay plain Python and call into these modules.

The default install is pure Python, so an editable install always runs the
sources as they are; see README "Speed".
"""

import os

from setuptools import setup

HOT_MODULES = [
    "src/cirulla/captures.py",
    "src/cirulla/cards.py",
    "src/cirulla/deal.py",
    "src/cirulla/unseen.py",
    "src/cirulla/bonuses.py",
    "src/cirulla/scoring.py",
    "src/cirulla/shuffle.py",
    "src/cirulla/bots/evaluate.py",
    "src/cirulla/bots/leafvalue.py",
    "src/cirulla/bots/draws.py",
    "src/cirulla/bots/policies.py",
    "src/cirulla/bots/playouts.py",
    "src/cirulla/bots/inference.py",
    "src/cirulla/bots/posterior.py",
]

ext_modules = []
if os.environ.get("CIRULLA_COMPILE") == "1":
    from mypyc.build import mypycify

    ext_modules = mypycify(HOT_MODULES, opt_level="3")

setup(ext_modules=ext_modules)
