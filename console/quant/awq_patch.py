"""A runtime fix for AutoAWQ 0.2.9's scale search on the CPU (imported only by the AWQ worker).

The bug (the "newnewnew..." answers of a CPU-quantized SmolLM2): ``AwqQuantizer._compute_best_scale``
snapshots the module before trying the 20 candidate scales with

    org_sd = {k: v.cpu() for k, v in module2inspect.state_dict().items()}

On a GPU ``.cpu()`` copies. On a CPU it returns *the same tensor*, so the snapshot aliases the live
weights, and the first candidate's in-place ``fc.weight.mul_(scales)`` also rewrites the snapshot.
``load_state_dict(org_sd)`` then "restores" ``W * s0`` instead of ``W``: every later candidate is
evaluated on corrupted weights (so ratio 0 always wins) and the module leaves the search already
scaled by ``s0``. ``apply_scale`` multiplies by the chosen scale once more and divides the
preceding norm (or ``up_proj``) once, so the saved weights carry ``s**2`` against ``1/s``: the
slope-2 relation measured in benchmarks/quantize-smollm2.md. It is not a transformers 5.x matter; any CPU run hits it.

The fix makes the snapshot a real copy by giving the inspected module a ``state_dict`` that clones,
for the duration of the original search only; everything else in AutoAWQ is untouched.
:func:`console.quant.awq_format.check_scaling` is the check that catches the bug in a checkpoint.
"""

from __future__ import annotations

import functools
from typing import Any

_APPLIED_FLAG = "_console_cpu_snapshot_fix"


def apply() -> None:
    """Install the fix on ``awq.quantize.quantizer.AwqQuantizer`` (idempotent)."""
    from awq.quantize.quantizer import AwqQuantizer

    original = AwqQuantizer._compute_best_scale
    if getattr(original, _APPLIED_FLAG, False):
        return

    @functools.wraps(original)
    def compute_best_scale(
        self: Any, x: Any, w_mean: Any, x_mean: Any, module2inspect: Any, *args: Any, **kwargs: Any
    ) -> Any:
        live_state_dict = module2inspect.state_dict

        def cloned_state_dict(*a: Any, **k: Any) -> dict[str, Any]:
            return {name: t.detach().clone() for name, t in live_state_dict(*a, **k).items()}

        # An instance attribute shadows nn.Module.state_dict for this module only.
        module2inspect.state_dict = cloned_state_dict
        try:
            return original(self, x, w_mean, x_mean, module2inspect, *args, **kwargs)
        finally:
            del module2inspect.state_dict

    setattr(compute_best_scale, _APPLIED_FLAG, True)
    AwqQuantizer._compute_best_scale = compute_best_scale
