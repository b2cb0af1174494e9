// The check every rejection test makes: the call throws the documented exception type with a
// message that names the argument and the values.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <typeinfo>
#include <vector>

namespace tessera_test {

/// Expects call() to throw exactly Exception with a message that contains every part.
template <class Exception, class Call>
void expect_rejected(Call&& call, const std::vector<std::string>& parts) {
  try {
    call();
    ADD_FAILURE() << "no exception; expected one mentioning \"" << parts.front() << "\"";
  } catch (const Exception& e) {
    const std::string msg = e.what();
    for (const std::string& part : parts) {
      EXPECT_NE(msg.find(part), std::string::npos)
          << "message \"" << msg << "\" lacks \"" << part << "\"";
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type " << typeid(e).name() << ": " << e.what();
  }
}

}  // namespace tessera_test
