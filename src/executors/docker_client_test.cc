#include "executors/docker_client.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dagu {
namespace {

std::string Frame(int stream, const std::string& payload) {
  std::string f(8, '\0');
  f[0] = static_cast<char>(stream);
  uint32_t n = static_cast<uint32_t>(payload.size());
  f[4] = static_cast<char>((n >> 24) & 0xff);
  f[5] = static_cast<char>((n >> 16) & 0xff);
  f[6] = static_cast<char>((n >> 8) & 0xff);
  f[7] = static_cast<char>(n & 0xff);
  return f + payload;
}

TEST(StreamDemuxerTest, SplitsFramesWhateverTheChunking) {
  std::string big(70000, 'x');
  const std::string stream = Frame(1, "out\n") + Frame(2, "err\n") + Frame(1, big) + Frame(1, "");
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{8}, size_t{9}, size_t{4096}, stream.size()}) {
    std::string out, err;
    StreamDemuxer demux([&](int s, std::string_view d) { (s == 2 ? err : out).append(d); });
    for (size_t i = 0; i < stream.size(); i += chunk) demux.Feed(std::string_view(stream).substr(i, chunk));
    EXPECT_EQ(out, "out\n" + big) << chunk;
    EXPECT_EQ(err, "err\n") << chunk;
  }
}

TEST(DockerEndpointTest, DockerHostForms) {
  auto d = DockerEndpointFor("");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->unix_socket, "/var/run/docker.sock");
  EXPECT_EQ(d->host, "unix:///var/run/docker.sock");
  auto u = DockerEndpointFor("unix:///run/podman.sock");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->unix_socket, "/run/podman.sock");
  auto t = DockerEndpointFor("tcp://127.0.0.1:2375/");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->unix_socket, "");
  EXPECT_EQ(t->base_url, "http://127.0.0.1:2375");
  auto bad = DockerEndpointFor("ssh://host");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("ssh://host"), std::string::npos);
  EXPECT_FALSE(DockerEndpointFor("unix://").ok());
}

TEST(DockerClientTest, UnreachableDaemonSaysWhere) {
  DockerClient client(*DockerEndpointFor("unix:///nonexistent/docker.sock"));
  Status s = client.Connect();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("Cannot connect to the Docker daemon at unix:///nonexistent/docker.sock"),
            std::string::npos)
      << s.message();
}

TEST(DockerClientTest, DaemonErrorsCarryItsMessage) {
  DockerResponse r;
  r.code = 404;
  r.body = R"({"cause":"no such container","message":"no container with name or ID \"x\" found","response":404})";
  Status s = DockerClient::Check(r);
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_EQ(s.message(), "Error response from daemon: no container with name or ID \"x\" found");
  r.code = 500;
  r.body = "plain text\n";
  EXPECT_EQ(DockerClient::Check(r).message(), "Error response from daemon: plain text");
  r.code = 204;
  EXPECT_TRUE(DockerClient::Check(r).ok());
}

TEST(ImageRefTest, ParsesLikeDocker) {
  ImageRef a = ParseImageRef("busybox");
  EXPECT_EQ(a.name, "docker.io/library/busybox");
  EXPECT_EQ(a.tag, "latest");
  EXPECT_EQ(a.registry, "docker.io");
  ImageRef b = ParseImageRef("localhost/busybox:static");
  EXPECT_EQ(b.name, "localhost/busybox");
  EXPECT_EQ(b.tag, "static");
  EXPECT_EQ(b.registry, "localhost");
  ImageRef c = ParseImageRef("registry.example.com:5000/team/app:1.2");
  EXPECT_EQ(c.name, "registry.example.com:5000/team/app");
  EXPECT_EQ(c.tag, "1.2");
  EXPECT_EQ(c.registry, "registry.example.com:5000");
  ImageRef d = ParseImageRef("user/app@sha256:abc");
  EXPECT_EQ(d.name, "docker.io/user/app@sha256:abc");
  EXPECT_EQ(d.tag, "");
}

TEST(DockerClientTest, EscapesQueryValues) {
  EXPECT_EQ(DockerClient::Escape("linux/amd64"), "linux%2Famd64");
  EXPECT_EQ(DockerClient::Escape("{\"reference\":{\"a:b\":true}}"),
            "%7B%22reference%22%3A%7B%22a%3Ab%22%3Atrue%7D%7D");
}

}  // namespace
}  // namespace dagu
