# heddle: the two commands.
#   make demo   installs what is missing, builds, finds a bug in a bundled example, replays it
#   make test   builds and runs the whole test suite through CTest
# Also: make build, make bench, make asan-test, make install PREFIX=..., make deps

PRESET   ?= default
BUILD    := build/$(PRESET)
HEDDLE   := $(BUILD)/bin/heddle
JOBS     ?= 2
PREFIX   ?= /usr/local

# Debian 12 packages the build needs (tools and -dev libraries). The last two lines:
# tests/thirdparty (header-only libraries, and compressors and other programs as Debian ships them).
PACKAGES := cmake ninja-build g++ make ccache libboost-context-dev libcli11-dev nlohmann-json3-dev \
            libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev librapidcheck-dev libdw-dev \
            libconcurrentqueue-dev chromium \
            libboost-dev pigz xz-utils zstd lbzip2 pbzip2 bzip2 libasio-dev \
            plzip pixz ripgrep libspdlog-dev libreaderwriterqueue-dev libatomic-queue-dev libthread-pool-dev \
            mold liburcu-dev libtbb-dev graphicsmagick libpthreadpool-dev libglib2.0-dev libuv1-dev libck-dev

.PHONY: all deps configure build test demo bench asan-test install clean

all: build

deps:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "heddle: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  else \
	    echo "heddle: missing Debian packages:$$missing"; \
	    echo "        install them with: sudo apt-get install$$missing"; exit 1; \
	  fi; \
	fi

$(BUILD)/build.ninja: CMakeLists.txt CMakePresets.json | deps
	cmake --preset $(PRESET) >/dev/null

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)

bench: build
	@scripts/bench.sh $(BUILD)

asan-test:
	$(MAKE) test PRESET=asan

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf build heddle-out
