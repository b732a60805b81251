"""The "next_token" exercise: its notebook source, hidden checks, mistakes and worked values."""
