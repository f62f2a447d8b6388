"""Scraping a real /metrics endpoint in the tests (engine and gateway)."""

from __future__ import annotations

import urllib.request

from prometheus_client.parser import text_string_to_metric_families


class Scrape:
    """One scrape: every sample by (name, labels)."""

    def __init__(self, url: str):
        with urllib.request.urlopen(url, timeout=10) as r:
            assert r.status == 200
            self.content_type = r.headers["Content-Type"]
            self.text = r.read().decode()
        self.samples = {}
        for family in text_string_to_metric_families(self.text):
            for s in family.samples:
                self.samples[(s.name, tuple(sorted(s.labels.items())))] = s.value

    def get(self, name: str, **labels) -> float:
        """A sample's value (0 when the series does not exist yet)."""
        return self.samples.get((name, tuple(sorted(labels.items()))), 0.0)

    def total(self, name: str, **labels) -> float:
        """The sum over every series of `name` whose labels include `labels`."""
        want = set(labels.items())
        return sum(v for (n, ls), v in self.samples.items() if n == name and want <= set(ls))
