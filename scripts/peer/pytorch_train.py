#!/usr/bin/env python3
"""The peer of `tact bench train`: the same network, batch and optimizer in
PyTorch, timed over the same number of steps on the same Fashion-MNIST
images. Prints one JSON line. Needs python3-torch (Debian) and numpy.

  python3 scripts/peer/pytorch_train.py --model mlp --steps 200 --threads 1
"""
import argparse, gzip, json, time

import numpy as np
import torch
import torch.nn as nn


def load_images(path):
    with gzip.open(path) as f:
        data = f.read()
    n = int.from_bytes(data[4:8], "big")
    return np.frombuffer(data, np.uint8, offset=16).reshape(n, 1, 28, 28).astype(np.float32) / 255


def load_labels(path):
    with gzip.open(path) as f:
        data = f.read()
    return np.frombuffer(data, np.uint8, offset=8).astype(np.int64)


def model(name):
    if name == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128),
                             nn.ReLU(), nn.Linear(128, 10))
    if name == "cnn_bn":  # tact's BatchNormalization: momentum 0.99 (PyTorch's 0.01), eps 1e-3
        bn2, bn1 = (lambda c: nn.BatchNorm2d(c, eps=1e-3, momentum=0.01),
                    lambda c: nn.BatchNorm1d(c, eps=1e-3, momentum=0.01))
        return nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), bn2(32), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(32, 64, 5, padding=2), bn2(64), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(3136, 1024), bn1(1024), nn.ReLU(),
                             nn.Dropout(0.4), nn.Linear(1024, 10))
    return nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(3136, 1024), nn.ReLU(), nn.Dropout(0.4),
                         nn.Linear(1024, 10))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="mlp")
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--batch", type=int, default=100)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    x = torch.from_numpy(load_images(a.data + "/train-images-idx3-ubyte.gz"))
    y = torch.from_numpy(load_labels(a.data + "/train-labels-idx1-ubyte.gz"))
    net = model(a.model)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    perm = torch.randperm(x.shape[0])
    batches = x.shape[0] // a.batch

    def step(i):
        idx = perm[(i % batches) * a.batch:(i % batches + 1) * a.batch]
        opt.zero_grad()
        loss = loss_fn(net(x[idx]), y[idx])
        loss.backward()
        opt.step()
        return loss.item()

    for i in range(5):  # warm-up, as tact's bench does
        step(i)
    start = time.perf_counter()
    for i in range(a.steps):
        step(i)
    secs = time.perf_counter() - start
    print(json.dumps({"peer": "pytorch " + torch.__version__, "model": a.model,
                      "threads": a.threads, "steps": a.steps, "batch": a.batch,
                      "images_per_sec": a.steps * a.batch / secs}))


if __name__ == "__main__":
    main()
