"""The acceptance test: which pairs to measure (peer_sample), the tools' output (parsers), one
test's records and samples judged together (samples), the verdicts (judge), the report's text
(report) and heat map (heat_map)."""
