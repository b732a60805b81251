"""The "sampling" exercise: its notebook source, hidden checks, mistakes and worked values."""
