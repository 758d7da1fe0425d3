"""Probes for contributors (need a GPU): one verified contraction for a profiler (`profile_case`), and the host
overhead of a cached call (`overhead`)."""
