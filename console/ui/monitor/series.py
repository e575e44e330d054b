"""Ring buffers behind the Monitor's plots (no Qt here, so it is testable headless).

The metrics store keeps an hour of engine bins and device samples; copying all of it on every
redraw would cost milliseconds per tick. :class:`MonitorSeries` instead pulls only what is new
since the last poll (the store's ``since=`` filter), keeps the last ``window_s`` seconds in its
own bounded deques, and renders them into fixed-size numpy arrays on a dense time grid: a gap
with no engine steps (the engine idles) reads as zero requests and zero tokens/s rather than as a
line drawn across the gap.

Latency percentiles are not composable across bins, so TTFT and inter-token latency p50/p95 are
sampled here at most once per ``latency_every_s`` over the last ``latency_window_s`` seconds.

All of this runs on the GUI thread several times a second, so nothing here re-reads what it has
already seen: a bin's plotted values are computed once, when the bin arrives (:func:`bin_row`),
and latency samples are fetched by what is new (``MetricsStore.latency_after``) and thinned to at
most ``LATENCY_KEEP`` per poll (a stride over the poll's samples), so the percentiles sort a few
thousand values, not the 50,000 the store keeps (at 7,000 tokens/s: 10 ms of GUI time a second,
in one piece, which the streaming lag's p99 showed).
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from console.metrics.store import DeviceSample, MetricsBin, MetricsStore, percentiles, prefix_hit_rate, spec_acceptance

#: NVML clock-throttle reason bits (nvmlClocksEventReasons) and the words shown for them.
THROTTLE_REASONS: dict[int, str] = {
    0x1: "idle",
    0x2: "application clocks",
    0x4: "software power cap",
    0x8: "hardware slowdown",
    0x10: "sync boost",
    0x20: "software thermal",
    0x40: "hardware thermal",
    0x80: "power brake",
    0x100: "display clocks",
}
#: The bits that mean "slowed down by power or heat" (what the power plot marks).
POWER_THERMAL_BITS = 0x4 | 0x8 | 0x20 | 0x40 | 0x80


def throttle_words(mask: float | int | None) -> list[str]:
    if mask is None or (isinstance(mask, float) and math.isnan(mask)):
        return []
    m = int(mask)
    return [word for bit, word in THROTTLE_REASONS.items() if m & bit]


@dataclass
class Snapshot:
    """Arrays ready to plot; ``x`` values are seconds relative to ``now`` (<= 0)."""

    now: float
    engine_x: np.ndarray
    engine: dict[str, np.ndarray]
    device_x: np.ndarray
    device: dict[str, np.ndarray]
    latency_x: np.ndarray
    latency: dict[str, np.ndarray]
    device_latest: dict[str, float] = field(default_factory=dict)


ENGINE_KEYS = (
    "running",
    "waiting",
    "kv_pct",
    "prompt_tps",
    "generation_tps",
    "preemptions",
    "prefix_hit_pct",
    "spec_accept_pct",
    "spec_tokens_per_step",
)
#: Ratios: a bin with nothing to divide (no prefix lookups, no drafts) is a gap (NaN), not 0 %.
RATIO_KEYS = ("prefix_hit_pct", "spec_accept_pct", "spec_tokens_per_step")


def _pct(v: float | None) -> float:
    return float("nan") if v is None else 100.0 * v


def bin_row(b: MetricsBin, res: float) -> tuple[float, ...]:
    """One bin's value of each of :data:`ENGINE_KEYS`, in that order."""
    rate, per = spec_acceptance(b)
    return (
        float(b.running),
        float(b.waiting),
        100.0 * b.kv_usage,
        b.prompt_tokens / res,
        b.generation_tokens / res,
        float(b.preemptions),
        _pct(prefix_hit_rate(b)),
        _pct(rate),
        float("nan") if per is None else per,
    )


def bin_columns(bins: list[MetricsBin], res: float) -> dict[str, list[float]]:
    """Each engine key's value per bin (the live plots and a recording's overlay alike)."""
    rows = [bin_row(b, res) for b in bins]
    return {key: [r[i] for r in rows] for i, key in enumerate(ENGINE_KEYS)}


def empty_columns(n: int) -> dict[str, np.ndarray]:
    return {k: np.full(n, np.nan) if k in RATIO_KEYS else np.zeros(n) for k in ENGINE_KEYS}


LATENCY_KEYS = ("ttft_p50_ms", "ttft_p95_ms", "itl_p50_ms", "itl_p95_ms")
#: Latency samples kept from one poll at most (a stride over them when there are more).
LATENCY_KEEP = 200


class MonitorSeries:
    def __init__(
        self,
        metrics: MetricsStore,
        window_s: float = 600.0,
        latency_every_s: float = 1.0,
        latency_window_s: float = 10.0,
    ) -> None:
        self.metrics = metrics
        self.window_s = window_s
        self.res = metrics.resolution_s
        self.latency_every_s = latency_every_s
        self.latency_window_s = latency_window_s
        cap = int(window_s / self.res) + 8
        self._cap = cap
        # engine bins as rows of plotted values (bin_row, computed once when a bin arrives) in a
        # numpy buffer twice the window long: a snapshot slices it instead of converting a deque
        self._bin_t = np.zeros(2 * cap)
        self._bin_rows = np.zeros((2 * cap, len(ENGINE_KEYS)))
        self._first = 0  # index of the oldest bin held
        self._count = 0  # bins held (at most cap)
        self._recent: dict[str, deque[tuple[float, float]]] = {
            kind: deque(maxlen=int(latency_window_s * 8 + 8) * LATENCY_KEEP) for kind in ("ttft", "itl")
        }
        self._seen: dict[str, float] = {}  # the newest latency sample's time fetched, per kind
        self._device: deque[DeviceSample] = deque(maxlen=cap * 4)
        self._latency: deque[tuple[float, float, float, float, float]] = deque(
            maxlen=int(window_s / latency_every_s) + 8
        )
        self._last_latency = 0.0
        # device and latency arrays, rebuilt only when a sample arrived (2 Hz and 1 Hz, against a
        # Monitor tick of 8 Hz): (the deque's length, its newest time) -> (times, columns)
        self._device_cache: tuple[tuple[int, float], np.ndarray, dict[str, np.ndarray]] | None = None
        self._latency_cache: tuple[tuple[int, float], np.ndarray, dict[str, np.ndarray]] | None = None

    # -- polling -------------------------------------------------------------------------------
    def poll(self, now: float | None = None) -> None:
        """Pull what is new in the store (cheap; call on every tick, visible or not)."""
        now = time.time() if now is None else now
        # bins from the newest held on: that one may have been still filling at the last poll. A
        # store cleared by a new load starts again at the clock's time, after what is held, so
        # the previous model's bins stay in the window until they scroll out.
        since = self._last_bin_t() if self._count else now - self.window_s
        for b in self.metrics.bins(since=since):
            row = bin_row(b, self.res)
            if self._count and b.t == self._last_bin_t():
                self._bin_rows[self._first + self._count - 1] = row
            else:
                self._append_bin(b.t, row)
        dsince = self._device[-1].t + 1e-6 if self._device else now - self.window_s
        self._device.extend(self.metrics.device_samples(since=dsince))
        while self._device and self._device[0].t < now - self.window_s:  # out of the window: never drawn
            self._device.popleft()
        start = now - self.latency_window_s
        for kind, recent in self._recent.items():
            new = self.metrics.latency_after(kind, max(self._seen.get(kind, start), start))
            if new:
                self._seen[kind] = new[-1][0]
            step = -(-len(new) // LATENCY_KEEP)  # ceil: keep at most LATENCY_KEEP of them
            recent.extend(new[::step] if step > 1 else new)
        if now - self._last_latency >= self.latency_every_s:
            self._last_latency = now
            ttft, itl = self._percentiles("ttft", start), self._percentiles("itl", start)
            self._latency.append((now, _ms(ttft[0]), _ms(ttft[1]), _ms(itl[0]), _ms(itl[1])))

    def _last_bin_t(self) -> float:
        return float(self._bin_t[self._first + self._count - 1])

    def _append_bin(self, t: float, row: tuple[float, ...]) -> None:
        if self._first + self._count == len(self._bin_t):  # the buffer's end: move what is held to its front
            keep = slice(self._first, self._first + self._count)
            self._bin_t[: self._count] = self._bin_t[keep]
            self._bin_rows[: self._count] = self._bin_rows[keep]
            self._first = 0
        i = self._first + self._count
        self._bin_t[i], self._bin_rows[i] = t, row
        if self._count == self._cap:
            self._first += 1
        else:
            self._count += 1

    def _percentiles(self, kind: str, start: float) -> tuple[float | None, float | None]:
        """p50 and p95 of ``kind``'s samples since ``start`` (older ones are dropped)."""
        recent = self._recent[kind]
        while recent and recent[0][0] < start:
            recent.popleft()
        p = percentiles((v for _, v in recent), (50, 95))
        return p[50], p[95]

    # -- rendering -----------------------------------------------------------------------------
    def snapshot(self, now: float | None = None) -> Snapshot:
        now = time.time() if now is None else now
        n = int(self.window_s / self.res)
        grid_start = (now - now % self.res) - (n - 1) * self.res
        engine_x = grid_start + np.arange(n) * self.res - now
        cols = empty_columns(n)
        if self._count:  # each bin's row was computed when it arrived: only array slicing here
            held = slice(self._first, self._first + self._count)
            times, rows = self._bin_t[held], self._bin_rows[held]
            idx = np.rint((times - grid_start) / self.res).astype(int)
            ok = (times >= grid_start) & (idx >= 0) & (idx < n)
            for i, key in enumerate(ENGINE_KEYS):
                cols[key][idx[ok]] = rows[ok, i]
        start = now - self.window_s
        dev_t, dev_cols = self._device_columns()
        lo = int(np.searchsorted(dev_t, start, "left"))
        device_x = dev_t[lo:] - now
        device = {k: v[lo:] for k, v in dev_cols.items()}
        lat_t, lat_cols = self._latency_columns()
        lo = int(np.searchsorted(lat_t, start, "left"))
        latency_x = lat_t[lo:] - now
        latency = {k: v[lo:] for k, v in lat_cols.items()}
        latest = dict(self._device[-1].values) if len(device_x) else {}
        return Snapshot(now, engine_x, cols, device_x, device, latency_x, latency, latest)

    def _device_columns(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Every held device sample (the window's: ``poll`` drops older ones) as arrays (a key a
        sample lacks is NaN there); rebuilt only when the samples held changed since the last call."""
        key = (len(self._device), self._device[-1].t if self._device else 0.0)
        if self._device_cache is None or self._device_cache[0] != key:
            dev = list(self._device)
            keys = sorted({k for s in dev for k in s.values})
            cols = {k: np.array([s.values.get(k, np.nan) for s in dev], dtype=float) for k in keys}
            self._device_cache = (key, np.array([s.t for s in dev], dtype=float), cols)
        return self._device_cache[1], self._device_cache[2]

    def _latency_columns(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        key = (len(self._latency), self._latency[-1][0] if self._latency else 0.0)
        if self._latency_cache is None or self._latency_cache[0] != key:
            rows = np.array(self._latency, dtype=float).reshape(len(self._latency), 1 + len(LATENCY_KEYS))
            cols = {k: rows[:, i + 1] for i, k in enumerate(LATENCY_KEYS)}
            self._latency_cache = (key, rows[:, 0], cols)
        return self._latency_cache[1], self._latency_cache[2]

    @property
    def bins_held(self) -> int:
        return self._count

    @property
    def device_held(self) -> int:
        return len(self._device)


def _ms(v: float | None) -> float:
    return float("nan") if v is None else 1000.0 * v


def recording_snapshot(store: MetricsStore, latency_every_s: float = 1.0, latency_window_s: float = 10.0) -> Snapshot:
    """A whole recording as plot arrays for the Monitor's comparison overlay, ``x`` in seconds
    since the run's start (``now``): its first engine bin with work in it, else its first sample.
    Device samples taken before that get negative ``x``. Engine bins on their dense grid, device
    samples as recorded, TTFT/ITL p50/p95 over the trailing ``latency_window_s`` every
    ``latency_every_s`` (as the live series samples them)."""
    bins = store.bins()
    dev = store.device_samples()
    data = store.to_json()
    ttft = sorted((float(t), float(v)) for t, v in data.get("ttft", []))
    itl = sorted((float(t), float(v)) for t, v in data.get("itl", []))
    times = [b.t for b in bins] + [d.t for d in dev] + [t for t, _ in ttft] + [t for t, _ in itl]
    if not times:
        empty = np.zeros(0)
        return Snapshot(0.0, empty, empty_columns(0), empty, {}, empty, {k: empty for k in LATENCY_KEYS})
    first, end = min(times), max(times)
    busy = [b.t for b in bins if b.running or b.waiting or b.generation_tokens or b.prompt_tokens]
    start = min(busy) if busy else first
    res = store.resolution_s
    grid0 = start - res * int((start - first) / res)  # the engine grid covers the whole recording
    n = int((end - grid0) / res) + 1
    engine_x = grid0 - start + np.arange(n) * res
    cols = empty_columns(n)
    if bins:
        idx = np.clip(np.rint((np.array([b.t for b in bins]) - grid0) / res).astype(int), 0, n - 1)
        for key, values in bin_columns(bins, res).items():
            cols[key][idx] = values
    keys = sorted({k for s in dev for k in s.values})
    device = {k: np.array([s.values.get(k, np.nan) for s in dev], dtype=float) for k in keys}
    device_x = np.array([s.t - start for s in dev], dtype=float)
    grid = np.arange(first + latency_every_s, end + latency_every_s, latency_every_s)
    latency: dict[str, np.ndarray] = {}
    for kind, samples in (("ttft", ttft), ("itl", itl)):
        t = np.array([s[0] for s in samples])
        v = [s[1] for s in samples]
        p50, p95 = [], []
        for g in grid:
            lo, hi = np.searchsorted(t, g - latency_window_s, "right"), np.searchsorted(t, g, "right")
            window = v[lo:hi]
            p = percentiles(window, (50, 95))
            p50.append(_ms(p[50]))
            p95.append(_ms(p[95]))
        latency[f"{kind}_p50_ms"], latency[f"{kind}_p95_ms"] = np.array(p50), np.array(p95)
    return Snapshot(start, engine_x, cols, device_x, device, grid - start, latency, dict(dev[-1].values) if dev else {})
