"""Reading runs: advantage, score items, match results and comparisons, variance reduction,
Markdown reports with figures, and the embedded study."""
