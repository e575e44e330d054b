"""GPU-RUN SHIM for ``vision_fit.py``'s Mistral-Small-3.1 vision loads; never part of the product.

vLLM 0.26.0's ``pixtral.py`` (which ``mistral3.py`` imports) takes ``PixtralRotaryEmbedding`` and
``position_ids_in_meshgrid`` from ``transformers.models.pixtral.modeling_pixtral``; transformers 5.17
(the GPU machine's) has neither (its rope is ``PixtralVisionRotaryEmbedding``, with another
interface), so vLLM cannot even inspect Mistral3ForConditionalGeneration ("failed to be inspected").
Copied as ``sitecustomize.py`` into a folder put first on ``PYTHONPATH`` (vision_fit.py does that for
the shapes that need it), this adds the two names to that module when it is imported, in every
process (vLLM inspects models in a subprocess), as transformers 4.5x defined them: the 2-D rope
table over image_size / patch_size patches a side, indexed by h x max_width + w.
"""

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

_NAME = "transformers.models.pixtral.modeling_pixtral"


def _patch(module: ModuleType) -> None:
    import torch
    from torch import nn

    if not hasattr(module, "PixtralRotaryEmbedding"):

        class PixtralRotaryEmbedding(nn.Module):  # type: ignore[misc]  # torch is Any: see [tool.mypy]
            def __init__(self, config: Any, device: Any = None) -> None:
                super().__init__()
                dim = config.head_dim
                base = getattr(config, "rope_theta", None) or (config.rope_parameters or {})["rope_theta"]
                side = config.image_size // config.patch_size
                freqs = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
                h = torch.arange(side, device=freqs.device)
                w = torch.arange(side, device=freqs.device)
                freqs_h = torch.outer(h, freqs[::2]).float()
                freqs_w = torch.outer(w, freqs[1::2]).float()
                table = torch.cat(
                    [freqs_h[:, None, :].repeat(1, side, 1), freqs_w[None, :, :].repeat(side, 1, 1)], dim=-1
                ).reshape(-1, dim // 2)
                self.register_buffer("inv_freq", torch.cat((table, table), dim=-1).to(device), persistent=False)

            @torch.no_grad()  # type: ignore[untyped-decorator]  # torch is Any: see [tool.mypy]
            def forward(self, x: Any, position_ids: Any) -> tuple[Any, Any]:
                freqs = self.inv_freq[position_ids]
                return freqs.cos().to(dtype=x.dtype), freqs.sin().to(dtype=x.dtype)

        module.PixtralRotaryEmbedding = PixtralRotaryEmbedding  # type: ignore[attr-defined]  # the patch itself

    if not hasattr(module, "position_ids_in_meshgrid"):

        def position_ids_in_meshgrid(patch_embeds_list: list[Any], max_width: int) -> Any:
            positions = []
            for patch in patch_embeds_list:
                height, width = patch.shape[-2:]
                mesh = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
                h_grid, v_grid = torch.stack(mesh, dim=-1).reshape(-1, 2).chunk(2, -1)
                positions.append((h_grid * max_width + v_grid)[:, 0])
            return torch.cat(positions)

        module.position_ids_in_meshgrid = position_ids_in_meshgrid  # type: ignore[attr-defined]  # the patch itself


class _Hook(importlib.abc.MetaPathFinder):
    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name != _NAME:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        orig = spec.loader.exec_module

        def exec_module(module: ModuleType, _orig: Callable[[ModuleType], None] = orig) -> None:
            _orig(module)
            _patch(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]  # the hook: patch after the module runs
        return spec


sys.meta_path.insert(0, _Hook())
