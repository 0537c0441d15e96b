#!/usr/bin/env python3
"""The peer of `tact bench embedding`: one training step of an embedding
table with sparse gradients, nn.Embedding(sparse=True), the loss the sum of
the looked-up rows, and SGD, Adagrad or SparseAdam (for adam) at lr 0.01,
the optimizers that take sparse gradients. The ids are tact's: (i * 7919) % vocab. Prints one JSON line
with the milliseconds per step of each run (the mean of --reps steps).
Needs python3-torch.

  python3 scripts/peer/pytorch_embedding.py --vocab 50000 --dim 64 --batch 512
"""
import argparse, json, time

import torch


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--vocab", type=int, default=50000)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--optimizer", choices=["sgd", "adagrad", "adam"], default="adagrad")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--reps", type=int, default=5)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    emb = torch.nn.Embedding(a.vocab, a.dim, sparse=True)
    with torch.no_grad():
        emb.weight.fill_(0.5)
    ids = torch.tensor([(i * 7919) % a.vocab for i in range(a.batch)])
    make = {"sgd": torch.optim.SGD, "adagrad": torch.optim.Adagrad,
            "adam": torch.optim.SparseAdam}[a.optimizer]
    opt = make(emb.parameters(), lr=0.01)

    def step():
        opt.zero_grad()
        emb(ids).sum().backward()
        opt.step()

    step()
    step()
    out = []
    for _ in range(a.runs):
        start = time.perf_counter()
        for _ in range(a.reps):
            step()
        out.append((time.perf_counter() - start) * 1e3 / a.reps)
    print(json.dumps({"train_ms": out}))


if __name__ == "__main__":
    main()
