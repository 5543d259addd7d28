// Minimal bencode value + codec for rtpengine's ng protocol (dicts, lists, strings, integers).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace lg {

struct BValue {
  enum class Type { Int, Str, List, Dict };
  Type type = Type::Str;
  int64_t i = 0;
  std::string s;
  std::vector<BValue> list;
  std::map<std::string, BValue> dict;  // bencode requires sorted keys; std::map gives that

  BValue() = default;
  BValue(const char* v) : type(Type::Str), s(v) {}
  BValue(std::string v) : type(Type::Str), s(std::move(v)) {}
  BValue(int64_t v) : type(Type::Int), i(v) {}
  BValue(int v) : type(Type::Int), i(v) {}
  static BValue makeList(std::vector<BValue> items = {});
  static BValue makeDict();

  BValue& operator[](const std::string& key);  // dict insert/access
  const BValue* find(const std::string& key) const;  // nullptr when absent or not a dict
  std::string str(const std::string& key) const;     // string member or ""
};

std::string bencode(const BValue& v);
// Parses one value starting at pos; advances pos. Returns false on malformed input.
bool bdecode(const std::string& in, size_t& pos, BValue& out);
bool bdecode(const std::string& in, BValue& out);  // whole string must be one value

}  // namespace lg
