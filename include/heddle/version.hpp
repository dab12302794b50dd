#pragma once
namespace heddle {
inline constexpr const char* version = "0.1.0";
}
