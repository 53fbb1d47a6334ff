#!/usr/bin/env python3
"""Module docs: https://example.com/py/docs"""
import os  # see https://docs.python.org/3/library/os.html
URL = "https://example.com/a\"b"
RAW = r"https://example.com/raw\d"
F = f"https://example.com/{name}/x"
half = 7 // 2 + len("http://after.floor.example/")
S = 'single https://single.example/s'
T = '''triple
http://triple.example/t
'''
call(http://code.example/c)
