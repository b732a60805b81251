"""The "kv_cache" exercise: its notebook source, hidden checks, mistakes and worked values."""
