"""The "learned_attention" exercise: its notebook source, hidden checks, mistakes and worked values."""
