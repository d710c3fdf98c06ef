"""Computer players for every variant (uses ``engine/``; never Discord, Pillow or SQL)."""
