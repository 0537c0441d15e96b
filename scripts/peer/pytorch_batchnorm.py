#!/usr/bin/env python3
"""The peer of `tact bench batchnorm`: F.batch_norm in training mode on a
channels-last float32 batch (tact's NHWC), forward alone and forward with
the gradients for x, gamma and beta given dy. Prints one JSON line with the
milliseconds of each run (the median of --reps calls). Needs python3-torch.

  python3 scripts/peer/pytorch_batchnorm.py --shape 100 28 28 32 --threads 1
"""
import argparse, json, statistics, time

import torch
import torch.nn.functional as F


def per_call_ms(fn, runs, reps):
    fn()
    fn()
    out = []
    for _ in range(runs):
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1e3)
        out.append(statistics.median(times))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shape", type=int, nargs=4, default=[100, 28, 28, 32])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--reps", type=int, default=9)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    n, h, w, c = a.shape
    gen = torch.Generator().manual_seed(1)
    # NCHW sizes, NHWC strides: the same bytes as tact's tensor.
    x = torch.rand(n, c, h, w, generator=gen).contiguous(memory_format=torch.channels_last)
    dy = torch.rand(n, c, h, w, generator=gen).contiguous(memory_format=torch.channels_last)
    gamma = torch.ones(c, requires_grad=True)
    beta = torch.zeros(c, requires_grad=True)
    mean, var = torch.zeros(c), torch.ones(c)
    xg = x.clone().requires_grad_()

    def forward():
        with torch.no_grad():
            F.batch_norm(x, mean, var, gamma, beta, training=True, momentum=0.01, eps=1e-3)

    def train():
        y = F.batch_norm(xg, mean, var, gamma, beta, training=True, momentum=0.01, eps=1e-3)
        torch.autograd.grad(y, [xg, gamma, beta], dy)

    print(json.dumps({"forward_ms": per_call_ms(forward, a.runs, a.reps),
                      "train_ms": per_call_ms(train, a.runs, a.reps)}))


if __name__ == "__main__":
    main()
