#include "core/base58.h"

#include <algorithm>
#include <vector>

#include "core/sha256.h"

namespace dagu {

std::string Base58Encode(std::string_view bytes) {
  static const char kAlphabet[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  size_t zeros = 0;
  while (zeros < bytes.size() && bytes[zeros] == '\0') ++zeros;
  // Repeated division of the big-endian number by 58, digits least significant first.
  std::vector<unsigned char> num(bytes.begin() + static_cast<std::ptrdiff_t>(zeros), bytes.end());
  std::string digits;
  while (!num.empty()) {
    int rem = 0;
    std::vector<unsigned char> quotient;
    for (unsigned char b : num) {
      int acc = rem * 256 + b;
      int q = acc / 58;
      rem = acc % 58;
      if (!quotient.empty() || q != 0) quotient.push_back(static_cast<unsigned char>(q));
    }
    digits += kAlphabet[rem];
    num.swap(quotient);
  }
  std::string out(zeros, '1');
  out.append(digits.rbegin(), digits.rend());
  return out;
}

std::string Base58Sha256(std::string_view data) {
  auto digest = Sha256(data);
  return Base58Encode(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

}  // namespace dagu
