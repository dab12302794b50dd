// A trace file in the temp directory for a test that replays a found bug,
// removed when the test ends. The name carries the test process's id, so
// binaries that CTest runs side by side never share a file.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

class temp_trace_file {
 public:
  temp_trace_file(std::string_view name, const std::string& text)
      : path_(std::filesystem::temp_directory_path() /
              ("heddle-test-" + std::to_string(::getpid()) + "-" + std::string(name))) {
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~temp_trace_file() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  temp_trace_file(const temp_trace_file&) = delete;
  temp_trace_file& operator=(const temp_trace_file&) = delete;
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};
