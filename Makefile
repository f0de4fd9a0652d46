# One entry point for everything. `make help` lists the targets.
SHELL := /bin/bash
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
export PATH := $(BIN):$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
NODES ?= 2
# Written by `sandbox/sandbox up` (prefix clustersuite); ansible.cfg names no inventory.
SANDBOX_INVENTORY := inventory/sandbox/hosts.yml
# Markers of a phase's start and end with the time (epoch seconds): .ci/phases.py reads them back.
phase_started = @echo "=== phase $@ started at $$(date +%s)"
phase_ended = @echo "=== phase $@ ended at $$(date +%s)"

.PHONY: help setup host venv image sources ml assets sandbox-up sandbox-down site test lint unit molecule bench clean

help:  ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/'

setup:  ## Install Debian packages, configure podman, create the venv
	$(phase_started)
	$(MAKE) --no-print-directory host venv
	$(phase_ended)

host:  ## Debian packages and podman configuration (needs root or sudo)
	sandbox/host-setup.sh

venv: $(VENV)/.installed  ## The pinned virtual environment in .venv (requirements-dev.txt: the operator's set plus tests)

$(VENV)/.installed: requirements.txt requirements-dev.txt
	python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

image: host  ## Build the sandbox node image (only when its recipe changed)
	sandbox/image/build.sh

sources: host  ## Cache the OpenMPI source tarball the sandbox builds (from this machine's Debian mirror)
	sandbox/fetch-openmpi-source.sh

ml: host image  ## MindSpore and PyTorch (CPU) wheels and the shared ML volume nodes mount at /opt/ml
	sandbox/ml-packages.sh ensure >/dev/null

assets: host  ## What the scenarios start from: the node image, the OpenMPI source, the ML volume
	$(phase_started)
	$(MAKE) --no-print-directory image sources ml
	$(phase_ended)

sandbox-up: setup ml  ## Bring up NODES sandbox nodes (default 2) with the ML volume
	SANDBOX_ML=1 NODES=$(NODES) sandbox/sandbox up

sandbox-down:  ## Remove every sandbox container, network and volume
	sandbox/sandbox down

site: setup sources  ## The main job: sandbox without the ML volume or a route out, site.yml (installs the frameworks), a 2-node msrun job
	SANDBOX_OFFLINE=1 NODES=$(NODES) sandbox/sandbox up
	$(BIN)/ansible-playbook -i $(SANDBOX_INVENTORY) site.yml
	$(BIN)/ansible-playbook -i $(SANDBOX_INVENTORY) playbooks/launch.yml -e @jobs/sample_msrun.yml

# The checks and the scenarios' assets at once (lint takes one core, the assets mostly wait on
# downloads), each target's output printed whole when it ends; then the scenarios.
test:  ## Everything CI runs: lint, unit tests, every Molecule scenario
	$(MAKE) --no-print-directory setup
	$(MAKE) --no-print-directory --jobs=3 --output-sync=target lint unit assets
	$(MAKE) --no-print-directory molecule

lint: venv  ## yamllint and ansible-lint (production profile)
	$(phase_started)
	$(BIN)/yamllint --strict .
	$(BIN)/ansible-lint
	$(phase_ended)

unit: venv  ## pytest over tests/ (no sandbox needed), a test file per core at a time
	$(phase_started)
	$(BIN)/pytest -q -n auto --dist loadfile
	$(phase_ended)

molecule: setup assets  ## Every Molecule scenario, each on its own sandbox, MOLECULE_LANES (2) at a time
	$(phase_started)
	$(BIN)/python molecule/lanes.py
	$(phase_ended)

bench: setup image sources ml  ## Benchmarks on the sandbox: all nine, or SCENARIOS="doctor planning" (bench/run.py --list)
	$(BIN)/python bench/run.py $(SCENARIOS)

clean: sandbox-down  ## Remove the sandbox, the ML volume and the venv
	sandbox/ml-packages.sh clean
	rm -rf $(VENV)
