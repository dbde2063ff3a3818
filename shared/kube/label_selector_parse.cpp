#include "shared/kube/label_selector.hpp"

// The parser of the string form, kept apart from matching and validation (label_selector.cpp).
// The grammar follows k8s.io/apimachinery/pkg/labels: comma-separated requirements, each
// `key`, `!key`, `key=v`, `key==v`, `key!=v`, `key in (a,b)`, `key notin (a,b)`, `key>n`, `key<n`.

#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace fed::kube {
namespace {

enum class Tok { End, Ident, Not, Eq, DoubleEq, NotEq, In, NotIn, Open, Close, Comma, Gt, Lt };

struct Token {
  Tok kind;
  std::string text;
  size_t pos;
};

bool is_special(char c) {
  return c == ',' || c == '(' || c == ')' || c == '=' || c == '!' || c == '<' || c == '>' ||
         std::isspace(static_cast<unsigned char>(c)) != 0;
}

std::vector<Token> lex(std::string_view in) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < in.size()) {
    const char c = in[i];
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++i;
      continue;
    }
    const size_t pos = i;
    auto two = [&](char next) { return i + 1 < in.size() && in[i + 1] == next; };
    switch (c) {
      case ',':
        out.push_back({Tok::Comma, ",", pos});
        ++i;
        continue;
      case '(':
        out.push_back({Tok::Open, "(", pos});
        ++i;
        continue;
      case ')':
        out.push_back({Tok::Close, ")", pos});
        ++i;
        continue;
      case '>':
        out.push_back({Tok::Gt, ">", pos});
        ++i;
        continue;
      case '<':
        out.push_back({Tok::Lt, "<", pos});
        ++i;
        continue;
      case '=':
        if (two('=')) {
          out.push_back({Tok::DoubleEq, "==", pos});
          i += 2;
        } else {
          out.push_back({Tok::Eq, "=", pos});
          ++i;
        }
        continue;
      case '!':
        if (two('=')) {
          out.push_back({Tok::NotEq, "!=", pos});
          i += 2;
        } else {
          out.push_back({Tok::Not, "!", pos});
          ++i;
        }
        continue;
      default:
        break;
    }
    while (i < in.size() && !is_special(in[i])) ++i;
    std::string word(in.substr(pos, i - pos));
    Tok kind = word == "in" ? Tok::In : word == "notin" ? Tok::NotIn : Tok::Ident;
    out.push_back({kind, std::move(word), pos});
  }
  out.push_back({Tok::End, "", in.size()});
  return out;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text), toks_(lex(text)) {}

  Result<LabelSelector> parse() {
    LabelSelector sel;
    if (peek().kind == Tok::End) return sel;
    while (true) {
      auto req = requirement();
      if (!req) return Unexpected(std::move(req).error());
      FED_TRY(sel.add(std::move(*req)));
      const Token& t = next();
      if (t.kind == Tok::End) return sel;
      if (t.kind != Tok::Comma) return error(t, "expected ',' between requirements");
    }
  }

 private:
  const Token& peek() const { return toks_[i_]; }
  const Token& next() { return toks_[i_ < toks_.size() - 1 ? i_++ : i_]; }

  Unexpected error(const Token& t, std::string_view what) const {
    std::string found = t.kind == Tok::End ? "end of input" : "'" + t.text + "'";
    return fail(ErrorCode::Invalid, "label selector \"" + std::string(text_) +
                                        "\": " + std::string(what) + " at position " +
                                        std::to_string(t.pos) + ", found " + found);
  }

  Result<Requirement> requirement() {
    Requirement r;
    if (peek().kind == Tok::Not) {
      next();
      const Token& k = next();
      if (k.kind != Tok::Ident) return error(k, "expected a label key after '!'");
      r.key = k.text;
      r.op = SelectorOp::DoesNotExist;
      return r;
    }
    const Token& k = next();
    if (k.kind != Tok::Ident) return error(k, "expected a label key");
    r.key = k.text;
    const Token& op = peek();
    switch (op.kind) {
      case Tok::End:
      case Tok::Comma:
        r.op = SelectorOp::Exists;
        return r;
      case Tok::Eq:
      case Tok::DoubleEq:
        r.op = SelectorOp::Equals;
        break;
      case Tok::NotEq:
        r.op = SelectorOp::NotEquals;
        break;
      case Tok::Gt:
        r.op = SelectorOp::GreaterThan;
        break;
      case Tok::Lt:
        r.op = SelectorOp::LessThan;
        break;
      case Tok::In:
        r.op = SelectorOp::In;
        break;
      case Tok::NotIn:
        r.op = SelectorOp::NotIn;
        break;
      default:
        return error(op, "expected an operator (=, ==, !=, in, notin, >, <)");
    }
    next();
    if (r.op == SelectorOp::In || r.op == SelectorOp::NotIn) {
      const Token& open = next();
      if (open.kind != Tok::Open) return error(open, "expected '(' after '" + r.key + " in'");
      while (true) {
        // An empty slot ("in (a,)" or "in ()") is the empty value, as in the Go parser.
        if (peek().kind == Tok::Ident) {
          r.values.push_back(next().text);
        } else {
          r.values.emplace_back();
        }
        const Token& t = next();
        if (t.kind == Tok::Close) break;
        if (t.kind != Tok::Comma) return error(t, "expected ',' or ')' in the value list");
      }
      return r;
    }
    // key= (empty value) is allowed: the value is "".
    if (peek().kind == Tok::Ident) {
      r.values.push_back(next().text);
    } else if (peek().kind == Tok::End || peek().kind == Tok::Comma) {
      if (r.op == SelectorOp::GreaterThan || r.op == SelectorOp::LessThan) {
        return error(peek(), "expected an integer value");
      }
      r.values.emplace_back();
    } else {
      return error(peek(), "expected a value");
    }
    return r;
  }

  std::string_view text_;
  std::vector<Token> toks_;
  size_t i_ = 0;
};

}  // namespace

Result<LabelSelector> LabelSelector::parse(std::string_view text) {
  return Parser(text).parse();
}

}  // namespace fed::kube
