// One object identity (support/object_id.h): the group comes from the apiVersion, and two
// objects are the same only when group, kind, namespace and name all are.
#include "support/object_id.h"

#include <gtest/gtest.h>

#include <set>

namespace hkim {
namespace {

TEST(ObjectId, GroupOfAnApiVersion) {
  EXPECT_EQ(ApiGroupOf("apps/v1"), "apps");
  EXPECT_EQ(ApiGroupOf("security.openshift.io/v1"), "security.openshift.io");
  EXPECT_EQ(ApiGroupOf("v1"), "");
  EXPECT_EQ(ApiGroupOf(""), "");
}

TEST(ObjectId, SameOnlyWhenEveryPartIs) {
  const ObjectId sa = ObjectId::FromApiVersion("v1", "ServiceAccount", "team-a", "nccl");
  EXPECT_EQ(sa, (ObjectId{"", "ServiceAccount", "team-a", "nccl"}));
  EXPECT_NE(sa, (ObjectId{"", "ServiceAccount", "team-b", "nccl"}));
  EXPECT_NE(sa, (ObjectId{"", "ServiceAccount", "team-a", "other"}));
  // One kind name in two groups is two objects (Argo CD and the API server key them so).
  EXPECT_NE((ObjectId{"argoproj.io", "Application", "argocd", "x"}),
            (ObjectId{"app.k8s.io", "Application", "argocd", "x"}));
  // "a/b" + "c" and "a" + "b/c" were one string key once; they are two identities.
  EXPECT_NE((ObjectId{"", "Kind", "a/b", "c"}), (ObjectId{"", "Kind", "a", "b/c"}));
  const std::set<ObjectId> ids = {sa, sa, ObjectId{"", "Namespace", "", "team-a"}};
  EXPECT_EQ(ids.size(), 2u);
}

}  // namespace
}  // namespace hkim
