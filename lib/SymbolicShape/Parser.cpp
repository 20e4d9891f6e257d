//===- Parser.cpp - JAX's symbolic shape spec parser ----------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// A tokenizer that follows Python's `tokenize` module (JAX parses specs with
// it, and its token names appear in error messages), and JAX's recursive
// descent parser `_Parser` on top of it.
//
// Where Python's tokenizer raises its own exception (end of input inside
// parentheses: "EOF in multi-line statement"), Tessera reports JAX's
// `unexpected end of string` detail instead.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "tessera/SymbolicShape/Parser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::detail;

/// The deepest nesting of parenthesized operations accepted.
static constexpr unsigned kMaxNesting = 200;

//===----------------------------------------------------------------------===//
// Python helpers
//===----------------------------------------------------------------------===//

std::string mlir::tessera::symbolic::pythonRepr(llvm::StringRef text) {
  bool hasSingle = text.contains('\''), hasDouble = text.contains('"');
  char quote = (hasSingle && !hasDouble) ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : text) {
    switch (c) {
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c == static_cast<unsigned char>(quote)) {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c < 0x20 || c == 0x7f) {
        out += "\\x";
        out += llvm::hexdigit(c >> 4, /*LowerCase=*/true);
        out += llvm::hexdigit(c & 15, /*LowerCase=*/true);
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  out += quote;
  return out;
}

std::string
mlir::tessera::symbolic::formatLikeShape(llvm::ArrayRef<LikeDim> like) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(like)) {
    if (i)
      s += ", ";
    s += d ? std::to_string(*d) : "None";
  }
  if (like.size() == 1)
    s += ",";
  return s + ")";
}

//===----------------------------------------------------------------------===//
// Tokenizer
//===----------------------------------------------------------------------===//

namespace {
enum class Tok {
  Name,
  Number,
  String,
  Op,
  Newline,
  NL,
  Indent,
  Dedent,
  EndMarker,
  ErrorToken,
  Comment,
  /// End of input inside parentheses (Python raises TokenError).
  EofInParens,
};

struct Token {
  Tok type;
  /// The operator name for Tok::Op (`LPAR`, `STAR`, ...).
  llvm::StringRef opName;
  llvm::StringRef text;
  /// The physical line and the column of the token in it.
  llvm::StringRef line;
  size_t column;

  /// Python's `tok_name[tok.exact_type]`.
  llvm::StringRef exactName() const {
    switch (type) {
    case Tok::Name:
      return "NAME";
    case Tok::Number:
      return "NUMBER";
    case Tok::String:
      return "STRING";
    case Tok::Op:
      return opName;
    case Tok::Newline:
      return "NEWLINE";
    case Tok::NL:
      return "NL";
    case Tok::Indent:
      return "INDENT";
    case Tok::Dedent:
      return "DEDENT";
    case Tok::EndMarker:
    case Tok::EofInParens:
      return "ENDMARKER";
    case Tok::ErrorToken:
      return "ERRORTOKEN";
    case Tok::Comment:
      return "COMMENT";
    }
    llvm_unreachable("unknown token");
  }
  bool isOp(llvm::StringRef name) const {
    return type == Tok::Op && opName == name;
  }
};

/// Python's exact operator tokens, longest first.
struct OpSpelling {
  const char *text;
  const char *name;
};
const OpSpelling kOperators[] = {
    {"**=", "DOUBLESTAREQUAL"},
    {"//=", "DOUBLESLASHEQUAL"},
    {">>=", "RIGHTSHIFTEQUAL"},
    {"<<=", "LEFTSHIFTEQUAL"},
    {"...", "ELLIPSIS"},
    {"!=", "NOTEQUAL"},
    {"%=", "PERCENTEQUAL"},
    {"&=", "AMPEREQUAL"},
    {"**", "DOUBLESTAR"},
    {"*=", "STAREQUAL"},
    {"+=", "PLUSEQUAL"},
    {"-=", "MINEQUAL"},
    {"->", "RARROW"},
    {"//", "DOUBLESLASH"},
    {"/=", "SLASHEQUAL"},
    {":=", "COLONEQUAL"},
    {"<<", "LEFTSHIFT"},
    {"<=", "LESSEQUAL"},
    {"==", "EQEQUAL"},
    {">=", "GREATEREQUAL"},
    {">>", "RIGHTSHIFT"},
    {"@=", "ATEQUAL"},
    {"^=", "CIRCUMFLEXEQUAL"},
    {"|=", "VBAREQUAL"},
    {"%", "PERCENT"},
    {"&", "AMPER"},
    {"(", "LPAR"},
    {")", "RPAR"},
    {"*", "STAR"},
    {"+", "PLUS"},
    {",", "COMMA"},
    {"-", "MINUS"},
    {".", "DOT"},
    {"/", "SLASH"},
    {":", "COLON"},
    {";", "SEMI"},
    {"<", "LESS"},
    {"=", "EQUAL"},
    {">", "GREATER"},
    {"@", "AT"},
    {"[", "LSQB"},
    {"]", "RSQB"},
    {"^", "CIRCUMFLEX"},
    {"{", "LBRACE"},
    {"|", "VBAR"},
    {"}", "RBRACE"},
    {"~", "TILDE"},
};

bool isWordChar(char c) {
  return llvm::isAlnum(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

/// Digits with optional single underscores between them.
size_t matchDigits(llvm::StringRef s, size_t pos, bool (*isDigit)(char)) {
  if (pos >= s.size() || !isDigit(s[pos]))
    return 0;
  size_t i = pos + 1;
  while (i < s.size()) {
    if (isDigit(s[i])) {
      ++i;
    } else if (s[i] == '_' && i + 1 < s.size() && isDigit(s[i + 1])) {
      i += 2;
    } else {
      break;
    }
  }
  return i - pos;
}

bool isDec(char c) { return llvm::isDigit(c); }
bool isHex(char c) { return llvm::isHexDigit(c); }
bool isOct(char c) { return c >= '0' && c <= '7'; }
bool isBin(char c) { return c == '0' || c == '1'; }

/// The length of a Python number literal at `pos` (Imagnumber, Floatnumber,
/// then Intnumber, as Python's regex alternation tries them), or 0.
size_t matchNumber(llvm::StringRef s, size_t pos) {
  auto exponent = [&](size_t p) -> size_t {
    if (p < s.size() && (s[p] == 'e' || s[p] == 'E')) {
      size_t q = p + 1;
      if (q < s.size() && (s[q] == '+' || s[q] == '-'))
        ++q;
      if (size_t d = matchDigits(s, q, isDec))
        return q + d - p;
    }
    return 0;
  };
  auto pointFloat = [&]() -> size_t {
    size_t d = matchDigits(s, pos, isDec);
    if (d && pos + d < s.size() && s[pos + d] == '.') {
      size_t f = matchDigits(s, pos + d + 1, isDec);
      size_t end = pos + d + 1 + f;
      return end + exponent(end) - pos;
    }
    if (pos < s.size() && s[pos] == '.') {
      if (size_t f = matchDigits(s, pos + 1, isDec)) {
        size_t end = pos + 1 + f;
        return end + exponent(end) - pos;
      }
    }
    return 0;
  };
  auto expFloat = [&]() -> size_t {
    size_t d = matchDigits(s, pos, isDec);
    if (!d)
      return 0;
    if (size_t e = exponent(pos + d))
      return d + e;
    return 0;
  };
  auto isImagSuffix = [&](size_t end) {
    return end < s.size() && (s[end] == 'j' || s[end] == 'J');
  };
  // Imagnumber.
  if (size_t d = matchDigits(s, pos, isDec); d && isImagSuffix(pos + d))
    return d + 1;
  size_t fl = pointFloat();
  if (!fl)
    fl = expFloat();
  if (fl && isImagSuffix(pos + fl))
    return fl + 1;
  if (fl)
    return fl;
  // Intnumber.
  if (pos + 1 < s.size() && s[pos] == '0') {
    char x = s[pos + 1];
    auto prefixed = [&](bool (*digit)(char)) -> size_t {
      size_t i = pos + 2, n = 0;
      while (true) {
        size_t j = i;
        if (j < s.size() && s[j] == '_')
          ++j;
        if (j < s.size() && digit(s[j])) {
          i = j + 1;
          ++n;
          continue;
        }
        break;
      }
      return n ? i - pos : 0;
    };
    size_t n = 0;
    if (x == 'x' || x == 'X')
      n = prefixed(isHex);
    else if (x == 'o' || x == 'O')
      n = prefixed(isOct);
    else if (x == 'b' || x == 'B')
      n = prefixed(isBin);
    if (n)
      return n;
  }
  if (pos < s.size() && s[pos] == '0') {
    // 0(?:_?0)*
    size_t i = pos + 1;
    while (i < s.size()) {
      if (s[i] == '0') {
        ++i;
      } else if (s[i] == '_' && i + 1 < s.size() && s[i + 1] == '0') {
        i += 2;
      } else {
        break;
      }
    }
    return i - pos;
  }
  if (pos < s.size() && s[pos] >= '1' && s[pos] <= '9')
    return matchDigits(s, pos, isDec);
  return 0;
}

/// Tokenizes `source` like Python's `tokenize.tokenize` (without the
/// ENCODING token).
std::vector<Token> tokenize(llvm::StringRef source) {
  std::vector<Token> tokens;
  int parenLevel = 0;
  llvm::SmallVector<size_t, 4> indents{0};
  size_t lineStart = 0;
  bool anyLine = false;
  llvm::StringRef lastLine;
  while (lineStart < source.size()) {
    size_t nl = source.find('\n', lineStart);
    size_t lineEnd = nl == llvm::StringRef::npos ? source.size() : nl + 1;
    llvm::StringRef line = source.slice(lineStart, lineEnd);
    lastLine = line;
    anyLine = true;
    size_t pos = 0;
    if (parenLevel == 0) {
      // Indentation at the start of a logical line.
      size_t col = 0;
      while (pos < line.size() &&
             (line[pos] == ' ' || line[pos] == '\t' || line[pos] == '\f')) {
        col = line[pos] == '\t' ? (col / 8 + 1) * 8 : col + 1;
        ++pos;
      }
      if (pos == line.size() || line[pos] == '\n' || line[pos] == '\r' ||
          line[pos] == '#') {
        // A blank or comment-only line.
        if (pos < line.size() && line[pos] == '#') {
          size_t end = line.find_first_of("\r\n", pos);
          if (end == llvm::StringRef::npos)
            end = line.size();
          tokens.push_back({Tok::Comment, "", line.slice(pos, end), line, pos});
          pos = end;
        }
        if (pos < line.size())
          tokens.push_back({Tok::NL, "", line.drop_front(pos), line, pos});
        lineStart = lineEnd;
        continue;
      }
      if (col > indents.back()) {
        indents.push_back(col);
        tokens.push_back({Tok::Indent, "", line.take_front(pos), line, 0});
      }
      while (col < indents.back()) {
        indents.pop_back();
        tokens.push_back({Tok::Dedent, "", "", line, pos});
      }
    }
    while (pos < line.size()) {
      char c = line[pos];
      if (c == ' ' || c == '\t' || c == '\f') {
        ++pos;
        continue;
      }
      if (c == '\r' || c == '\n') {
        size_t end = line.size();
        tokens.push_back({parenLevel > 0 ? Tok::NL : Tok::Newline, "",
                          line.slice(pos, end), line, pos});
        pos = end;
        break;
      }
      if (c == '#') {
        size_t end = line.find_first_of("\r\n", pos);
        if (end == llvm::StringRef::npos)
          end = line.size();
        tokens.push_back({Tok::Comment, "", line.slice(pos, end), line, pos});
        pos = end;
        continue;
      }
      if (size_t n = matchNumber(line, pos)) {
        tokens.push_back({Tok::Number, "", line.substr(pos, n), line, pos});
        pos += n;
        continue;
      }
      bool matchedOp = false;
      for (const OpSpelling &op : kOperators) {
        if (line.substr(pos).starts_with(op.text)) {
          size_t n = strlen(op.text);
          if (op.text[0] == '(' || op.text[0] == '[' || op.text[0] == '{')
            ++parenLevel;
          else if (op.text[0] == ')' || op.text[0] == ']' || op.text[0] == '}')
            --parenLevel;
          tokens.push_back({Tok::Op, op.name, line.substr(pos, n), line, pos});
          pos += n;
          matchedOp = true;
          break;
        }
      }
      if (matchedOp)
        continue;
      if (c == '\'' || c == '"') {
        // A complete single-line string, else an error token.
        size_t i = pos + 1;
        bool closed = false;
        while (i < line.size() && line[i] != '\n') {
          if (line[i] == '\\') {
            i += 2;
            continue;
          }
          if (line[i] == c) {
            closed = true;
            ++i;
            break;
          }
          ++i;
        }
        if (closed) {
          tokens.push_back({Tok::String, "", line.slice(pos, i), line, pos});
          pos = i;
        } else {
          tokens.push_back(
              {Tok::ErrorToken, "", line.substr(pos, 1), line, pos});
          ++pos;
        }
        continue;
      }
      if (isWordChar(c)) {
        size_t i = pos;
        while (i < line.size() && isWordChar(line[i]))
          ++i;
        tokens.push_back({Tok::Name, "", line.slice(pos, i), line, pos});
        pos = i;
        continue;
      }
      tokens.push_back({Tok::ErrorToken, "", line.substr(pos, 1), line, pos});
      ++pos;
    }
    lineStart = lineEnd;
  }
  if (parenLevel > 0) {
    tokens.push_back({Tok::EofInParens, "", "", "", 0});
    return tokens;
  }
  if (anyLine && !lastLine.ends_with("\n") && !lastLine.ends_with("\r") &&
      !lastLine.ltrim(" \t\f").starts_with("#"))
    tokens.push_back({Tok::Newline, "", "", lastLine, lastLine.size()});
  for (size_t i = 1; i < indents.size(); ++i)
    tokens.push_back({Tok::Dedent, "", "", "", 0});
  tokens.push_back({Tok::EndMarker, "", "", "", 0});
  return tokens;
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

/// JAX's `_Parser`.
class Parser {
public:
  Parser(llvm::StringRef spec, std::optional<llvm::ArrayRef<LikeDim>> like,
         std::string specRepr, SymbolicScope &scope)
      : spec(spec), specRepr(std::move(specRepr)), like(like), scope(scope),
        tokens(tokenize(spec)) {}

  DimResult<llvm::SmallVector<DimExpr>> parse() {
    DIM_TRY_ASSIGN(tok, nextTok());
    DIM_TRY_ASSIGN(next, shape(tok));
    DIM_TRY_STATUS(expectToken(next, {"ENDMARKER"}));
    return llvm::SmallVector<DimExpr>(dims.begin(), dims.end());
  }

private:
  DimError parseErr(const Token *tok, const llvm::Twine &detail,
                    DimErrorKind kind = DimErrorKind::ValueError) {
    std::string msg =
        ("syntax error in symbolic shape " + specRepr + " in dimension " +
         llvm::Twine(dims.size()) + ": " + detail + ". ")
            .str();
    if (tok)
      msg += ("Parsed '" + tok->line.take_front(tok->column) +
              "', remaining '" + tok->line.drop_front(tok->column) + "'.")
                 .str();
    return DimError(kind, msg);
  }

  DimResult<Token> nextTok() {
    while (true) {
      if (pos >= tokens.size() || tokens[pos].type == Tok::EofInParens) {
        pos = tokens.size();
        return parseErr(nullptr, "unexpected end of string");
      }
      const Token &t = tokens[pos++];
      if (t.type != Tok::Newline && t.type != Tok::Indent &&
          t.type != Tok::Dedent)
        return t;
    }
  }

  DimStatus expectToken(const Token &tok,
                        std::initializer_list<llvm::StringRef> expected) {
    for (llvm::StringRef e : expected)
      if (tok.exactName() == e)
        return DimStatus::success();
    std::string names;
    for (llvm::StringRef e : expected) {
      if (!names.empty())
        names += ", ";
      names += e.str();
    }
    return parseErr(&tok, "expecting one of {" + names + "} but found " +
                              tok.exactName());
  }

  DimResult<Token> consumeToken(const Token &tok, llvm::StringRef expected) {
    DIM_TRY_STATUS(expectToken(tok, {expected}));
    return nextTok();
  }

  static bool in(const Token &tok,
                 std::initializer_list<llvm::StringRef> names) {
    for (llvm::StringRef n : names)
      if (tok.exactName() == n)
        return true;
    return false;
  }
  static bool followsShape(const Token &tok) {
    return in(tok, {"ENDMARKER", "RPAR"});
  }
  static bool followsExpr(const Token &tok) {
    return in(tok, {"ENDMARKER", "RPAR", "COMMA"});
  }
  static bool followsTerm(const Token &tok) {
    return in(tok, {"ENDMARKER", "RPAR", "COMMA", "PLUS", "MINUS"});
  }

  DimResult<int64_t> integer(const Token &tok) {
    DIM_TRY_STATUS(expectToken(tok, {"NUMBER"}));
    llvm::StringRef text = tok.text;
    // Python's int() accepts decimal digits with single underscores.
    bool decimal = !text.empty() && llvm::all_of(text, [](char c) {
      return llvm::isDigit(c) || c == '_';
    });
    if (!decimal)
      return parseErr(&tok, "expecting integer, found " + text);
    std::string digits;
    for (char c : text)
      if (c != '_')
        digits += c;
    int64_t value;
    if (llvm::StringRef(digits).getAsInteger(10, value))
      return parseErr(&tok, "integer " + text + " does not fit in 64 bits",
                      DimErrorKind::Overflow);
    return value;
  }

  DimStatus addDim(std::optional<DimExpr> expr, const Token &tok) {
    if (!expr)
      return parseErr(&tok, "unexpected placeholder for unknown dimension; "
                            "like=" +
                                formatLikeShape(*like));
    if (expr->isConstant() && like) {
      if (dims.size() >= like->size())
        return parseErr(&tok, "dimension " + llvm::Twine(dims.size()) +
                                  " is beyond the 'like' shape " +
                                  formatLikeShape(*like));
      const LikeDim &likeDim = (*like)[dims.size()];
      if (!likeDim || *likeDim != *expr->getConstant())
        return parseErr(
            &tok, "different size " + expr->str() +
                      " for known dimension; like=" + formatLikeShape(*like));
    }
    dims.push_back(*expr);
    return DimStatus::success();
  }

  DimResult<Token> shape(Token tok) {
    if (tok.isOp("LPAR")) {
      if (++depth > kMaxNesting)
        return parseErr(&tok, "nesting too deep", DimErrorKind::LimitExceeded);
      DIM_TRY_ASSIGN(inner, nextTok());
      DIM_TRY_ASSIGN(next, shape(inner));
      --depth;
      return consumeToken(next, "RPAR");
    }
    while (true) {
      if (followsShape(tok))
        break;
      bool isEllipsis = tok.isOp("ELLIPSIS");
      bool isUnderscore = tok.type == Tok::Name && tok.text == "_";
      if (isEllipsis || isUnderscore) {
        if (!like)
          return parseErr(&tok,
                          "spec contains ... but no 'like' shape was given");
        size_t minLen = isEllipsis ? dims.size() : dims.size() + 1;
        if (like->size() < minLen)
          return parseErr(&tok, "cannot resolve placeholder '" + tok.text +
                                    "' because we parsed " +
                                    llvm::Twine(dims.size()) +
                                    " already and 'like' shape has only " +
                                    llvm::Twine(like->size()) + " dimensions");
      }
      if (isEllipsis) {
        for (size_t i = dims.size(), e = like->size(); i < e; ++i) {
          std::optional<DimExpr> d;
          if ((*like)[i])
            d = DimExpr(*(*like)[i]);
          DIM_TRY_STATUS(addDim(d, tok));
        }
        DIM_TRY_ASSIGN(next, nextTok());
        tok = next;
        break;
      }
      std::optional<DimExpr> e;
      if (isUnderscore) {
        if ((*like)[dims.size()])
          e = DimExpr(*(*like)[dims.size()]);
        DIM_TRY_ASSIGN(next, nextTok());
        tok = next;
      } else {
        DIM_TRY_ASSIGN(parsed, expr(tok));
        e = parsed.first;
        tok = parsed.second;
      }
      DIM_TRY_STATUS(addDim(e, tok));
      if (followsShape(tok))
        break;
      DIM_TRY_ASSIGN(next, consumeToken(tok, "COMMA"));
      tok = next;
    }
    return tok;
  }

  DimResult<std::pair<DimExpr, Token>> expr(Token tok) {
    bool negated = tok.isOp("MINUS");
    if (negated || tok.isOp("PLUS")) {
      DIM_TRY_ASSIGN(next, nextTok());
      tok = next;
    }
    std::optional<DimExpr> acc;
    while (true) {
      DIM_TRY_ASSIGN(parsed, term(tok));
      tok = parsed.second;
      DimExpr t = parsed.first;
      if (negated) {
        DIM_TRY_ASSIGN(n, neg(t));
        t = n;
      }
      if (acc) {
        DIM_TRY_ASSIGN(sum, add(*acc, t));
        acc = sum;
      } else {
        acc = t;
      }
      if (followsExpr(tok))
        return std::make_pair(*acc, tok);
      negated = tok.isOp("MINUS");
      DIM_TRY_STATUS(expectToken(tok, {"PLUS", "MINUS"}));
      DIM_TRY_ASSIGN(next, nextTok());
      tok = next;
    }
  }

  DimResult<std::pair<DimExpr, Token>> term(Token tok) {
    std::optional<DimExpr> acc;
    while (true) {
      DIM_TRY_ASSIGN(parsed, factor(tok));
      DimExpr f = parsed.first;
      tok = parsed.second;
      if (tok.isOp("CIRCUMFLEX")) {
        DIM_TRY_ASSIGN(powTok, nextTok());
        DIM_TRY_STATUS(expectToken(powTok, {"NUMBER"}));
        DIM_TRY_ASSIGN(power, integer(powTok));
        auto powered = pow(f, power);
        if (powered.failed()) {
          const DimError &err = powered.getError();
          if (err.getKind() == DimErrorKind::Overflow ||
              err.getKind() == DimErrorKind::LimitExceeded)
            return parseErr(&powTok, err.getMessage(), err.getKind());
          return err;
        }
        f = *powered;
        DIM_TRY_ASSIGN(next, nextTok());
        tok = next;
      }
      if (acc) {
        auto product = mul(*acc, f);
        if (product.failed()) {
          const DimError &err = product.getError();
          if (err.getKind() == DimErrorKind::Overflow ||
              err.getKind() == DimErrorKind::LimitExceeded)
            return parseErr(&tok, err.getMessage(), err.getKind());
          return err;
        }
        acc = *product;
      } else {
        acc = f;
      }
      if (followsTerm(tok))
        return std::make_pair(*acc, tok);
      DIM_TRY_ASSIGN(next, consumeToken(tok, "STAR"));
      tok = next;
    }
  }

  DimResult<std::pair<DimExpr, Token>> factor(Token tok) {
    if (tok.type == Tok::Name) {
      std::optional<FactorKind> op =
          llvm::StringSwitch<std::optional<FactorKind>>(tok.text)
              .Case("mod", FactorKind::Mod)
              .Case("floordiv", FactorKind::FloorDiv)
              .Case("max", FactorKind::Max)
              .Case("min", FactorKind::Min)
              .Default(std::nullopt);
      if (op) {
        DIM_TRY_ASSIGN(next, nextTok());
        return binaryOp(*op, next);
      }
      DIM_TRY_ASSIGN(v, scope.getVariable(tok.text));
      DIM_TRY_ASSIGN(next, nextTok());
      return std::make_pair(v, next);
    }
    int64_t sign = 1;
    if (tok.isOp("MINUS")) {
      sign = -1;
      DIM_TRY_ASSIGN(next, nextTok());
      tok = next;
      DIM_TRY_STATUS(expectToken(tok, {"NUMBER"}));
    }
    if (tok.type == Tok::Number) {
      DIM_TRY_ASSIGN(v, integer(tok));
      DIM_TRY_ASSIGN(next, nextTok());
      // `v` is non-negative, so negating it cannot overflow.
      return std::make_pair(DimExpr(v * sign), next);
    }
    DIM_TRY_STATUS(expectToken(tok, {"NAME", "MINUS", "NUMBER"}));
    llvm_unreachable("expectToken fails for other tokens");
  }

  DimResult<std::pair<DimExpr, Token>> binaryOp(FactorKind op, Token tok) {
    if (++depth > kMaxNesting)
      return parseErr(&tok, "nesting too deep", DimErrorKind::LimitExceeded);
    DIM_TRY_ASSIGN(t1, consumeToken(tok, "LPAR"));
    DIM_TRY_ASSIGN(e1, expr(t1));
    DIM_TRY_ASSIGN(t2, consumeToken(e1.second, "COMMA"));
    DIM_TRY_ASSIGN(e2, expr(t2));
    DIM_TRY_ASSIGN(t3, consumeToken(e2.second, "RPAR"));
    --depth;
    DimResult<DimExpr> result = DimExpr(0);
    if (op == FactorKind::Max)
      result = maxDim(e1.first, e2.first);
    else if (op == FactorKind::Min)
      result = minDim(e1.first, e2.first);
    else
      result = makeOperation(op, e1.first, e2.first, &scope);
    DIM_TRY_ASSIGN(r, result);
    return std::make_pair(r, t3);
  }

  llvm::StringRef spec;
  std::string specRepr;
  std::optional<llvm::ArrayRef<LikeDim>> like;
  SymbolicScope &scope;
  std::vector<Token> tokens;
  size_t pos = 0;
  unsigned depth = 0;
  llvm::SmallVector<DimExpr> dims;
};
} // namespace

DimResult<llvm::SmallVector<DimExpr>> mlir::tessera::symbolic::parseShapeSpec(
    llvm::StringRef spec, SymbolicScope &scope,
    std::optional<llvm::ArrayRef<LikeDim>> like) {
  return Parser(spec, like, pythonRepr(spec), scope).parse();
}

DimResult<DimExpr> mlir::tessera::symbolic::parseDimExpr(llvm::StringRef text,
                                                         SymbolicScope &scope) {
  DIM_TRY_ASSIGN(dims,
                 Parser(text, std::nullopt, pythonRepr(text), scope).parse());
  if (dims.empty())
    return DimError::value("not enough values to unpack (expected 1, got 0)");
  if (dims.size() > 1)
    return DimError::value("too many values to unpack (expected 1)");
  return dims.front();
}
