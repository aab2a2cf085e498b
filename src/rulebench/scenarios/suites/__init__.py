"""RuLES test suites: the official JSONL files (read and written) and our generated v3 suites.

`official.load_suite_file` / `load_suite_dir` read upstream's per-behavior files and the merged
redistribution; `official_writer.write_suite` writes the per-behavior layout; and
`generated.generate_suite` makes benign, basic and redteam suites of the official sizes from
our own templates, with fresh parameters for every case and seed.
"""
