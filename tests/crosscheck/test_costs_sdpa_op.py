"""The SDPA operation alone (calculator.costs.ops.Ops.sdpa) against PyTorch on CPU: FlopCounterMode's
bytes autograd saves (saved_tensors_hooks, each storage once), and FLOPs by torch.utils.flop_counter's sdpa rules.

Measured here: FlopCounterMode registers those rules for the CUDA kernels only (flash, efficient, cudnn), so on
the CPU the kernel ``_scaled_dot_product_flash_attention_for_cpu`` counts 0 FLOPs both ways; the op's FLOPs are
checked against the rule functions themselves, called on the same shapes."""

import torch
from torch.utils.flop_counter import FlopCounterMode, sdpa_backward_flop_count, sdpa_flop_count

from calculator.costs.ops import Ops


def _measure(b: int, h: int, n: int, d: int) -> tuple[int, int, int]:
    x = torch.randn(b, n, 3 * h * d, requires_grad=True)
    saved: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        s = t.untyped_storage()
        saved[s.data_ptr()] = s.nbytes()
        return t

    with FlopCounterMode(display=False) as fc:
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            q, k, v = x.view(b, n, 3, h, d).permute(2, 0, 3, 1, 4).unbind(0)
            before = dict(saved)
            out = torch.nn.functional.scaled_dot_product_attention(q, k, v)
            mine = {p: s for p, s in saved.items() if p not in before or p == x.untyped_storage().data_ptr()}
        forward = fc.get_total_flops()
        out.sum().backward()
        backward = fc.get_total_flops() - forward
    return forward, backward, sum(mine.values())


def test_sdpa_op_matches_torch_cpu() -> None:
    for b, h, n, d in ((1, 1, 4, 8), (2, 3, 7, 16), (3, 2, 33, 5)):
        forward, backward, saved = _measure(b, h, n, d)
        ops = Ops(4)
        x = ops.new((b, n, 3 * h * d), True)
        q = ops.permute(ops.view(x, (b, n, 3, h, d)), (2, 0, 3, 1, 4))
        parts = [ops.select(q, 0, i) for i in range(3)]
        ops.sdpa(*parts)
        assert (forward, backward) == (0, 0), "FlopCounterMode now counts the CPU kernel: compare with it"
        shape = (b, h, n, d)
        rule = (sdpa_flop_count(shape, shape, shape), sdpa_backward_flop_count(shape, shape, shape, shape))
        assert (ops.forward, ops.backward) == rule, (b, h, n, d)
        assert ops.activations == saved, (b, h, n, d)
