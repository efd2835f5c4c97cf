# qbulk: front door. Each target is a thin wrapper over one script.
# Debian's own tools come first on PATH (checkpatch needs Debian's python3).
export PATH := /usr/sbin:/usr/bin:/sbin:/bin:$(PATH)

# The base kernel: 7.3 (the queue in patches/) or 6.12 (backports/6.12/)
KERNEL ?= 7.3
export KERNEL
FLAVOUR ?= debug
SOURCE ?= qbulk
T ?=
REPS ?= 5
MODES ?= main cost latency
NAME ?=
MUTANTS ?=
FIRST ?= 1
R ?= $(lastword $(sort $(wildcard results/*)))

.PHONY: demo check backport mutants series-check postings bench report qbulkstat setup tree base-tree export build ksft shell clean

demo: build/setup.stamp
	bash scripts/demo.sh

check: build/setup.stamp
	bash scripts/check.sh $(if $(T),-t $(T))

# make check on the 6.12 backport; results/backport-6.12/check.log.
backport: build/setup.stamp
	bash scripts/backport.sh

# Each sabotage of tests/mutants/ (or only MUTANTS="NAME...") built, booted and
# caught by its tests; results/mutants/report.md.
mutants: build/setup.stamp
	bash scripts/mutants.sh $(MUTANTS)

# The postings as git send-email sends them, signed off by git config's
# user.name and user.email: build/postings/ (V=2 for a second version).
V ?= 1
postings: build/setup.stamp
	bash scripts/postings.sh $(V)

# Each patch built (W=1, gcc, clang, i386) and checked on its own, from
# patch FIRST; results/series-check-KERNEL/report.md.
series-check: build/setup.stamp
	bash scripts/series-check.sh $(FIRST)

# Base kernel vs patched, REPS runs each; results/NAME/report.md.
bench: build/setup.stamp
	QBULK_BENCH_MODES="$(MODES)" bash scripts/bench.sh $(REPS) $(NAME)

# Re-render a report from its stored raw results: make report R=results/NAME
R ?= $(patsubst %/raw,%,$(lastword $(sort $(wildcard results/*/raw))))
report:
	/usr/bin/python3 bench/report.py $(R)

# The live bulking viewer: build/qbulkstat IFACE
qbulkstat: build/setup.stamp
	$(MAKE) -C tools/qbulkstat OUT=$(CURDIR)/build

setup: build/setup.stamp
build/setup.stamp: scripts/setup.sh
	bash scripts/setup.sh
	mkdir -p build && touch $@

tree:
	bash scripts/tree.sh

base-tree:
	bash scripts/tree.sh base

export:
	bash scripts/export.sh

build:
	bash scripts/build.sh $(FLAVOUR) $(SOURCE)

ksft:
	bash scripts/ksft.sh

shell:
	bash scripts/vm.sh -k build/out-$(KERNEL)-$(SOURCE)-$(FLAVOUR)/arch/x86/boot/bzImage -i

clean:
	rm -rf build/out-* build/check build/vm build/ksft
