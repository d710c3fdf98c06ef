"""Interoperability with other backgammon software (GNU Backgammon IDs, Jellyfish .mat files).

Pure Python on top of engine/: no Discord, no SQL, no images.
"""
