PYTHON ?= python3

.PHONY: install test demo bench bench-quick clean

install:
	$(PYTHON) -m pip install -e '.[test]'

test:
	$(PYTHON) -m pytest

demo:
	lanelog demo --serve

bench:
	$(PYTHON) -m bench

bench-quick:
	$(PYTHON) -m bench --quick

clean:
	rm -rf build *.egg-info .pytest_cache bench/out
