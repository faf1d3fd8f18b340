"""Shared test set-up: hypothesis runs derandomized, so every run draws the same cases."""

from hypothesis import HealthCheck, settings

settings.register_profile("course", derandomize=True, deadline=None, max_examples=40,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("course")
