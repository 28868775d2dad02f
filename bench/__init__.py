"""Benchmarks run by `make bench`; each prints a markdown table for the README."""
